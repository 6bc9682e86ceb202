import { randomUUID } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * The content of `dataDir/name`, written from `generate()` on first start and only read afterwards
 * (owner-readable only), so a key generated for this installation survives restarts.
 */
export const readOrCreateKeyFile = async (dataDir: string, name: string, generate: () => string): Promise<string> => {
  const file = path.join(dataDir, name);
  await mkdir(dataDir, { recursive: true });
  const candidate = `${file}.${randomUUID()}.tmp`;
  await writeFile(candidate, generate(), { mode: 0o600 });
  try {
    // link() publishes the whole file or fails when one exists: of two instances starting at once,
    // one key wins and both read it, never a half-written one.
    await link(candidate, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await rm(candidate, { force: true });
  }
  return (await readFile(file, 'utf8')).trim();
};
