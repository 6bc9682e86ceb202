import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { expect, it } from 'vitest';
import { createLocalFileStorage } from '../../infrastructure/storage/local-file-storage.js';
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
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
