import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { expect, it } from 'vitest';
import { createLocalFileStorage, sweepAbandonedWrites } from '../../infrastructure/storage/local-file-storage.js';
import { createS3FileStorage } from '../../infrastructure/storage/s3-file-storage.js';
import { createTestBucket } from '../support/s3.js';
import { fileStorageContract } from './file-storage-contract.js';

fileStorageContract('local disk', async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'file-storage-'));
  return { storage: createLocalFileStorage(path.join(root, 'files')), close: () => rm(root, { recursive: true, force: true }) };
});

fileStorageContract('S3-compatible (MinIO or TEST_S3_ENDPOINT)', async () => {
  const bucket = await createTestBucket();
  return { storage: createS3FileStorage(bucket.options), close: () => bucket.remove() };
});

it('local disk: leaves nothing beside a file it wrote or failed to write', async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'file-storage-'));
  try {
    const storage = createLocalFileStorage(root);
    await storage.put('org/req/card.png', Buffer.from('first'), 'image/png');
    await storage.put('org/req/card.png', Buffer.from('second'), 'image/png');
    const broken = Readable.from(
      (async function* () {
        yield Buffer.from('x');
        throw new Error('broken');
      })(),
    );
    await expect(storage.put('org/req/card.png', broken, 'image/png')).rejects.toThrow('broken');
    expect(await readdir(path.join(root, 'org', 'req'))).toEqual(['card.png']);
    expect(await readdir(path.join(root, '.incoming'))).toEqual([]);
    await expect(storage.put('.incoming/card.png', Buffer.from('x'), 'image/png')).rejects.toThrow(/Invalid storage key/);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

it('local disk: the partial writes of a killed process are removed when the storage is next opened, and no other', async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'file-storage-'));
  try {
    const incoming = path.join(root, '.incoming');
    await mkdir(incoming, { recursive: true });
    const deadPid = spawnSync('true').pid;
    const partial = async (name: string, ageMs = 0) => {
      await writeFile(path.join(incoming, name), 'partial');
      const at = new Date(Date.now() - ageMs);
      await utimes(path.join(incoming, name), at, at);
    };
    const day = 24 * 60 * 60 * 1000;
    await partial(`${os.hostname()}~${deadPid}~a.tmp`);
    await partial(`${os.hostname()}~${process.pid}~b.tmp`);
    await partial('other-host~1~c.tmp', day / 2);
    await partial('other-host~1~d.tmp', 2 * day);

    expect(await sweepAbandonedWrites(root)).toBe(2);
    expect((await readdir(incoming)).sort()).toEqual([`${os.hostname()}~${process.pid}~b.tmp`, 'other-host~1~c.tmp'].sort());

    await rm(path.join(incoming, `${os.hostname()}~${process.pid}~b.tmp`));
    await partial(`${os.hostname()}~${deadPid}~e.tmp`);
    createLocalFileStorage(root);
    await expect.poll(() => readdir(incoming)).toEqual(['other-host~1~c.tmp']);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
