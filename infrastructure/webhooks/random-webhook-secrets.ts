import { randomBytes } from 'node:crypto';
import type { WebhookSecretGenerator } from '../../application/ports/webhook-sender.js';

/** 256 random bits; the prefix tells a person what the string is when it turns up in a config file. */
export const randomWebhookSecrets: WebhookSecretGenerator = {
  generate: () => `whsec_${randomBytes(32).toString('base64url')}`,
};
