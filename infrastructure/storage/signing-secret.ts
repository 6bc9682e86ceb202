import { randomBytes, randomUUID } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

const KEY_FILE = 'url-signing.key';

/**
 * The secret that signs result links: URL_SIGNING_SECRET when configured, otherwise one generated on
 * first start and kept in the data folder, so links stay valid across restarts.
 */
export const loadSigningSecret = async ({ configured, dataDir }: { configured: string | undefined; dataDir: string }): Promise<string> => {
  if (configured) return configured;
  const file = path.join(dataDir, KEY_FILE);
  await mkdir(dataDir, { recursive: true });
  const candidate = `${file}.${randomUUID()}.tmp`;
  await writeFile(candidate, randomBytes(32).toString('hex'), { mode: 0o600 });
  try {
    // link() publishes the whole file or fails when one exists: of two instances starting at once,
    // one key wins and both read it, never a half-written one.
    await link(candidate, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await rm(candidate, { force: true });
  }
  const secret = (await readFile(file, 'utf8')).trim();
  if (!secret) throw new Error(`${file} is empty; delete it to generate a new URL signing key`);
  return secret;
};
