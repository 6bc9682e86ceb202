import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../infrastructure/config/config.js';

describe('storage configuration', () => {
  it('keeps files on the local disk unless told otherwise', () => {
    expect(loadConfig({}).STORAGE).toBe('local');
  });

  it('reads a complete S3 configuration', () => {
    const config = loadConfig({ STORAGE: 's3', S3_BUCKET: 'renders', S3_ENDPOINT: 'http://minio:9000', S3_FORCE_PATH_STYLE: 'true', S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'secret' });
    expect(config).toMatchObject({ STORAGE: 's3', S3_BUCKET: 'renders', S3_ENDPOINT: 'http://minio:9000', S3_REGION: 'us-east-1', S3_FORCE_PATH_STYLE: true });
  });

  it('names every missing or half-given S3 setting at start', () => {
    expect(() => loadConfig({ STORAGE: 's3', S3_ACCESS_KEY_ID: 'id' })).toThrow(/S3_BUCKET: required when STORAGE=s3[\s\S]*S3_SECRET_ACCESS_KEY/);
    expect(() => loadConfig({ STORAGE: 'gcs' })).toThrow(/STORAGE/);
  });
});
