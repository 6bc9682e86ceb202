import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { readOrCreateKeyFile } from './key-file.js';

const KEY_FILE = 'url-signing.key';

/**
 * The secret that signs result links: URL_SIGNING_SECRET when configured, otherwise one generated on
 * first start and kept in the data folder, so links stay valid across restarts.
 */
export const loadSigningSecret = async ({ configured, dataDir }: { configured: string | undefined; dataDir: string }): Promise<string> => {
  if (configured) return configured;
  const secret = await readOrCreateKeyFile(dataDir, KEY_FILE, () => randomBytes(32).toString('hex'));
  if (!secret) throw new Error(`${path.join(dataDir, KEY_FILE)} is empty; delete it to generate a new URL signing key`);
  return secret;
};
