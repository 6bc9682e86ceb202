import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileStorage } from '../../application/ports/file-storage.js';
import { DomainError } from '../../domain/shared/errors.js';
import { createLocalFileStorage } from '../../infrastructure/storage/local-file-storage.js';

let root: string;
let storage: FileStorage;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'file-storage-'));
  storage = createLocalFileStorage(path.join(root, 'files'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('local file storage', () => {
  it('stores, replaces, reads and deletes by key', async () => {
    const key = 'org-1/req-1/card.png';
    await storage.put(key, Buffer.from('first'), 'image/png');
    await storage.put(key, Buffer.from('second'), 'image/png');
    expect((await storage.get(key))?.toString()).toBe('second');
    // Nothing is left beside the file from the write-then-rename.
    expect(await readdir(path.join(root, 'files', 'org-1', 'req-1'))).toEqual(['card.png']);
    await storage.delete(key);
    expect(await storage.get(key)).toBeNull();
    await storage.delete(key);
  });

  it.each(['../outside', 'org/../../outside', '/etc/passwd', 'org//file', 'org/./file', '', 'org\\..\\file'])('rejects the key %j', async (key) => {
    await expect(storage.put(key, Buffer.from('x'), 'text/plain')).rejects.toBeInstanceOf(DomainError);
    await expect(storage.get(key)).rejects.toBeInstanceOf(DomainError);
  });
});
