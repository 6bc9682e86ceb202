import path from 'node:path';
import type { FileStorage } from '../../application/ports/file-storage.js';
import type { Config } from '../config/config.js';
import { createLocalFileStorage } from './local-file-storage.js';
import { createS3FileStorage } from './s3-file-storage.js';

/** The storage STORAGE names: the local disk by default, or a bucket that API and worker hosts share. */
export const createFileStorage = (config: Config): FileStorage => {
  if (config.STORAGE === 'local') return createLocalFileStorage(path.join(config.DATA_DIR, 'files'));
  if (!config.S3_BUCKET) throw new Error('S3_BUCKET is required when STORAGE=s3');
  return createS3FileStorage({
    endpoint: config.S3_ENDPOINT,
    region: config.S3_REGION,
    bucket: config.S3_BUCKET,
    credentials: config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY } : undefined,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
  });
};
