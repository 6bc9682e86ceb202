import { randomUUID } from 'node:crypto';
import type { Stats } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { resolveByteRange, type FileStorage, type StoredFileInfo } from '../../application/ports/file-storage.js';
import { keySegments } from './storage-keys.js';

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * Every put renames a fresh file into place, so the inode changes with each replacement even
 * within one millisecond; with size and mtime it tells versions apart without hashing the content.
 */
const infoOf = (stats: Stats): StoredFileInfo => ({
  size: stats.size,
  etag: `"${stats.ino.toString(16)}-${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}"`,
});

/** Files on the local disk under `rootDir`, one file per key (the embedded default). */
export const createLocalFileStorage = (rootDir: string): FileStorage => {
  const root = path.resolve(rootDir);

  const pathOf = (key: string): string => path.join(root, ...keySegments(key));

  return {
    async put(key, content) {
      const target = pathOf(key);
      await mkdir(path.dirname(target), { recursive: true });
      // Written aside then renamed: a reader sees the old file or the whole new one, never a partial write.
      const temporary = `${target}.${randomUUID()}.tmp`;
      try {
        if (Buffer.isBuffer(content)) {
          await writeFile(temporary, content);
        } else {
          const file = await open(temporary, 'w');
          await pipeline(content, file.createWriteStream());
        }
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
    async stat(key) {
      try {
        return infoOf(await stat(pathOf(key)));
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async open(key, request) {
      let file;
      try {
        file = await open(pathOf(key), 'r');
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
      try {
        // Size and content come from the one open file, so a replacement in between cannot mix versions.
        const info = infoOf(await file.stat());
        const range = request ? resolveByteRange(request, info.size) : null;
        if (request && !range) {
          await file.close();
          return { ...info, unsatisfiable: true };
        }
        const stream = file.createReadStream(range ? { start: range.start, end: range.end } : {});
        return { ...info, stream, range };
      } catch (error) {
        await file.close();
        throw error;
      }
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
  };
};
