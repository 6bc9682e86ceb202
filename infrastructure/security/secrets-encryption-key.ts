import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { SecretSealer } from '../../application/ports/secret-sealer.js';
import { readOrCreateKeyFile } from '../storage/key-file.js';
import { createAesGcmSecretSealer, parseSealingKeys } from './aes-gcm-secret-sealer.js';

const KEY_FILE = 'secrets-encryption.key';

/**
 * Seals the secrets kept in events: with the keys of SECRETS_ENCRYPTION_KEY when configured,
 * otherwise with one generated on first start into the data folder, like the URL signing key. The
 * file holds the same `id:key` text as the variable, so it can be moved into it (behind a new key
 * to rotate). Its random id tells in an error which installation's key a secret needs.
 */
export const loadSecretSealer = async ({ configured, dataDir }: { configured: string | undefined; dataDir: string }): Promise<SecretSealer> => {
  if (configured) return createAesGcmSecretSealer(parseSealingKeys(configured, 'SECRETS_ENCRYPTION_KEY'));
  const generated = await readOrCreateKeyFile(dataDir, KEY_FILE, () => `local-${randomBytes(4).toString('hex')}:${randomBytes(32).toString('base64url')}`);
  // A file that does not parse stops the start rather than being replaced: that would lose every secret sealed with its key.
  return createAesGcmSecretSealer(parseSealingKeys(generated, path.join(dataDir, KEY_FILE)));
};
