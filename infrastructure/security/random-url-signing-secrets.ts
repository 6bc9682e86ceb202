import { randomBytes } from 'node:crypto';
import type { UrlSigningSecretGenerator } from '../../application/ports/url-signing-secrets.js';

/** 256 random bits, base64url: no character a shell or a URL would have to quote. */
export const randomUrlSigningSecrets: UrlSigningSecretGenerator = {
  generate: () => `urlsk_${randomBytes(32).toString('base64url')}`,
};
