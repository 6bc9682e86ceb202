import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FileStorage } from '../../application/ports/file-storage.js';
import { validationError } from '../../domain/shared/errors.js';

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** Files on the local disk under `rootDir`, one file per key (the embedded default). */
export const createLocalFileStorage = (rootDir: string): FileStorage => {
  const root = path.resolve(rootDir);

  /** Keys come from file names clients choose: a key must never reach outside the root. */
  const pathOf = (key: string): string => {
    const segments = key.split('/');
    if (key === '' || path.isAbsolute(key) || key.includes('\\') || key.includes('\0') || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
      throw validationError(`Invalid storage key: ${key}`);
    }
    return path.join(root, ...segments);
  };

  return {
    async put(key, content) {
      const target = pathOf(key);
      await mkdir(path.dirname(target), { recursive: true });
      // Written aside then renamed: a reader sees the old file or the whole new one, never a partial write.
      const temporary = `${target}.${randomUUID()}.tmp`;
      try {
        await writeFile(temporary, content);
        await rename(temporary, target);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
    },
    async get(key) {
      try {
        return await readFile(pathOf(key));
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
  };
};
