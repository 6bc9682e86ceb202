import { randomUUID } from 'node:crypto';
import type { Stats } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { resolveByteRange, type FileStorage, type StoredFileInfo } from '../../application/ports/file-storage.js';
import { validationError } from '../../domain/shared/errors.js';
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

/**
 * Writes in progress live in this folder of the root, outside every key, named after the host and
 * process writing them: a process killed mid-write leaves its partial file here, where the next
 * process to open the storage finds it by its dead owner and removes it.
 */
const INCOMING = '.incoming';
/** How long a partial write of another host may stay: its owner cannot be asked whether it still runs. */
const FOREIGN_WRITE_LIFETIME_MS = 24 * 60 * 60 * 1000;

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Removes the partial writes whose process is gone (or, from another host, that are older than a day). */
export const sweepAbandonedWrites = async (rootDir: string, now = Date.now()): Promise<number> => {
  const incoming = path.join(path.resolve(rootDir), INCOMING);
  const names = await readdir(incoming).catch((error: unknown) => {
    if (isMissing(error)) return [];
    throw error;
  });
  let removed = 0;
  for (const name of names) {
    const [host, pid] = name.split('~');
    const file = path.join(incoming, name);
    const abandoned = host === os.hostname() ? !isRunning(Number(pid)) : now - ((await stat(file).catch(() => null))?.mtimeMs ?? now) > FOREIGN_WRITE_LIFETIME_MS;
    if (!abandoned) continue;
    await rm(file, { force: true });
    removed += 1;
  }
  return removed;
};

/**
 * Files on the local disk under `rootDir`, one file per key (the embedded default). Opening it
 * starts a sweep of the partial writes an earlier process was killed in the middle of.
 */
export const createLocalFileStorage = (rootDir: string): FileStorage => {
  const root = path.resolve(rootDir);
  const incoming = path.join(root, INCOMING);
  const writerPrefix = `${os.hostname()}~${process.pid}`;
  sweepAbandonedWrites(root).catch(() => undefined);

  const pathOf = (key: string): string => {
    const segments = keySegments(key);
    if (segments[0] === INCOMING) throw validationError(`Invalid storage key: ${key}`);
    return path.join(root, ...segments);
  };

  return {
    async put(key, content) {
      const target = pathOf(key);
      await Promise.all([mkdir(path.dirname(target), { recursive: true }), mkdir(incoming, { recursive: true })]);
      // Written aside then renamed: a reader sees the old file or the whole new one, never a partial write.
      const temporary = path.join(incoming, `${writerPrefix}~${randomUUID()}.tmp`);
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
