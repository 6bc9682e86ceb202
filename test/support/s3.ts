import { randomBytes } from 'node:crypto';
import { CreateBucketCommand, DeleteBucketCommand, DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { inject } from 'vitest';
import type { S3FileStorageOptions } from '../../infrastructure/storage/s3-file-storage.js';

export interface TestBucket {
  readonly options: S3FileStorageOptions;
  /** The same bucket through the SDK directly, to check what the service stored. */
  readonly client: S3Client;
  /** What STORAGE=s3 needs to use this bucket. */
  readonly env: Record<string, string>;
  /** Empties and removes the bucket. */
  remove(): Promise<void>;
}

/** A fresh bucket on the run's S3-compatible server, so test files never see each other's objects. */
export const createTestBucket = async (): Promise<TestBucket> => {
  const server = inject('s3Server');
  if (!server) throw new Error('No S3-compatible server for this run: run `npm run setup` (it builds MinIO) or set TEST_S3_ENDPOINT');
  const bucket = `test-${randomBytes(8).toString('hex')}`;
  const credentials = { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey };
  const client = new S3Client({ endpoint: server.endpoint, region: server.region, forcePathStyle: true, credentials });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    options: { endpoint: server.endpoint, region: server.region, bucket, credentials, forcePathStyle: true },
    client,
    env: {
      STORAGE: 's3',
      S3_ENDPOINT: server.endpoint,
      S3_REGION: server.region,
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: server.accessKeyId,
      S3_SECRET_ACCESS_KEY: server.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    },
    async remove() {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
      const keys = (listed.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []));
      if (keys.length > 0) await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys } }));
      await client.send(new DeleteBucketCommand({ Bucket: bucket }));
      client.destroy();
    },
  };
};
