import { randomBytes } from 'node:crypto';
import type { WebhookSecretGenerator } from '../../application/ports/webhook-sender.js';

/**
 * 256 random bits as Standard Webhooks secrets are written: `whsec_` and standard base64, which the
 * standardwebhooks libraries decode into the HMAC key.
 */
export const randomWebhookSecrets: WebhookSecretGenerator = {
  generate: () => `whsec_${randomBytes(32).toString('base64')}`,
};
