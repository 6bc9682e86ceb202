import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretSealer } from '../../application/ports/secret-sealer.js';

/** One AES-256 key and the id sealed strings name it by. */
export interface SealingKey {
  readonly id: string;
  readonly key: Buffer;
}

const FORMAT = 'v1';
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** What `seal` writes: `v1:<key id>:<nonce>:<ciphertext then tag>`, base64url; at least a tag's worth of body. */
export const SEALED_SECRET = /^v1:[A-Za-z0-9_-]{1,32}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{22,}$/;

/**
 * AES-256-GCM with a random 96-bit nonce per secret. The first key seals; every key opens what it
 * sealed, so a new key can go first while secrets sealed with older ones stay readable. The format
 * and key id are authenticated along with the secret, so neither can be changed unnoticed.
 */
export const createAesGcmSecretSealer = (keys: readonly SealingKey[]): SecretSealer => {
  const [sealing] = keys;
  if (!sealing) throw new Error('secret sealing needs at least one key');
  const byId = new Map<string, Buffer>();
  for (const { id, key } of keys) {
    if (!KEY_ID.test(id)) throw new Error(`key id "${id}" must be 1 to 32 letters, digits, "-" or "_"`);
    if (key.length !== KEY_BYTES) throw new Error(`key "${id}" must be ${KEY_BYTES} bytes, not ${key.length}`);
    if (byId.has(id)) throw new Error(`key id "${id}" is given twice`);
    byId.set(id, key);
  }

  return {
    seal(plain) {
      const header = `${FORMAT}:${sealing.id}`;
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', sealing.key, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(header, 'utf8'));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${header}:${nonce.toString('base64url')}:${body.toString('base64url')}`;
    },
    open(sealed) {
      if (!SEALED_SECRET.test(sealed)) throw new Error('not a sealed secret of a known format');
      const [format, keyId, nonce, body] = sealed.split(':') as [string, string, string, string];
      const key = byId.get(keyId);
      if (!key) throw new Error(`a secret is sealed with key "${keyId}", which is not configured (SECRETS_ENCRYPTION_KEY)`);
      const bytes = Buffer.from(body, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(`${format}:${keyId}`, 'utf8'));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      try {
        return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        throw new Error(`a secret sealed with key "${keyId}" does not open: it was altered, or that key is not the one that sealed it`);
      }
    },
  };
};

/**
 * Keys written as `id:key[,id:key...]`, each key 32 bytes in base64 or base64url (`openssl rand
 * -base64 32`); the first seals. `source` names where the text came from in errors.
 */
export const parseSealingKeys = (text: string, source: string): SealingKey[] =>
  text.split(',').map((entry) => {
    const match = /^([^:]*):([A-Za-z0-9+/_-]{43}=?)$/.exec(entry.trim());
    if (!match) throw new Error(`${source}: each key must be written as <id>:<32 bytes in base64>, comma-separated`);
    const [, id = '', encoded = ''] = match;
    return { id, key: Buffer.from(encoded, 'base64') };
  });
