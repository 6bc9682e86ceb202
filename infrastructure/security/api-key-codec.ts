import { hash, randomBytes } from 'node:crypto';
import type { ApiKeyCodec } from '../../application/ports/security.js';

const KEY_PREFIX = 'rk_';

/**
 * Keys carry 256 random bits, so a fast digest is the right hash: there is nothing to brute-force,
 * and authentication stays a single indexed lookup.
 */
export const sha256ApiKeyCodec: ApiKeyCodec = {
  generate() {
    const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
    return { key, prefix: key.slice(0, KEY_PREFIX.length + 6) };
  },
  hash: (key) => hash('sha256', key, 'hex'),
};
