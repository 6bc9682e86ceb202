import { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client, type GetObjectCommandOutput } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { resolveByteRange, type ByteRangeRequest, type FileStorage, type StoredFileInfo } from '../../application/ports/file-storage.js';
import { keySegments } from './storage-keys.js';

export interface S3FileStorageOptions {
  /** Unset: AWS's own endpoint for the region. */
  readonly endpoint?: string;
  readonly region: string;
  readonly bucket: string;
  /** Unset: the SDK's default credential chain (environment, profile, instance role). */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** `endpoint/bucket/key` rather than `bucket.endpoint/key`, which MinIO and most self-hosted servers need. */
  readonly forcePathStyle: boolean;
}

/** Uploads larger than one part go up in parts of this size, a few at a time, as the stream yields them. */
const PART_SIZE = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

const statusOf = (error: unknown): number | undefined => (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

const rangeHeader = (request: ByteRangeRequest) => ('suffix' in request ? `bytes=-${request.suffix}` : `bytes=${request.start}-${request.end ?? ''}`);

/** `bytes 0-9/100` */
const CONTENT_RANGE = /^bytes (\d+)-(\d+)\/(\d+)$/;

/** Result files as objects in one bucket of an S3-compatible store, so every host reads what any host wrote. */
export const createS3FileStorage = (options: S3FileStorageOptions): FileStorage => {
  const client = new S3Client({
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    ...(options.credentials ? { credentials: { ...options.credentials } } : {}),
    // Newer SDKs add CRC checksums to every request by default; many S3-compatible servers reject or
    // mishandle them, and a ranged read cannot be validated against a whole-object checksum anyway.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const Bucket = options.bucket;
  const objectKey = (key: string) => keySegments(key).join('/');

  const infoOf = (output: { ETag?: string | undefined; ContentLength?: number | undefined }, size = output.ContentLength): StoredFileInfo => {
    if (output.ETag === undefined || size === undefined) throw new Error('the object store answered without ETag or Content-Length');
    return { size, etag: output.ETag };
  };

  const stat = async (key: string): Promise<StoredFileInfo | null> => {
    try {
      return infoOf(await client.send(new HeadObjectCommand({ Bucket, Key: objectKey(key) })));
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw error;
    }
  };

  const getObject = async (key: string, range?: ByteRangeRequest): Promise<GetObjectCommandOutput | null> => {
    try {
      return await client.send(new GetObjectCommand({ Bucket, Key: objectKey(key), ...(range ? { Range: rangeHeader(range) } : {}) }));
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw error;
    }
  };

  return {
    async put(key, content, contentType) {
      // A Buffer within one part goes up as one PutObject; a stream or a large Buffer as a multipart
      // upload, which S3 publishes whole on completion (or aborts), so readers never see part of it.
      await new Upload({
        client,
        params: { Bucket, Key: objectKey(key), Body: content, ContentType: contentType },
        partSize: PART_SIZE,
        queueSize: PARTS_IN_FLIGHT,
      }).done();
    },
    async get(key) {
      const output = await getObject(key);
      if (!output?.Body) return null;
      const bytes = await output.Body.transformToByteArray();
      // A view of the SDK's bytes, not a second copy of the file.
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },
    stat,
    async open(key, request) {
      let output: GetObjectCommandOutput | null;
      try {
        // `bytes=-0` is not a range S3 answers 416 to; resolve it here like any unsatisfiable range.
        if (request && 'suffix' in request && request.suffix === 0) output = null;
        else output = await getObject(key, request);
      } catch (error) {
        if (statusOf(error) !== 416) throw error;
        output = null;
      }
      if (!output) {
        const info = await stat(key);
        if (!info) return null;
        if (!request || resolveByteRange(request, info.size)) throw new Error(`the object store refused a satisfiable read of ${key}`);
        return { ...info, unsatisfiable: true };
      }
      if (!(output.Body instanceof Readable)) throw new Error('the object store answered without a body stream');
      const stream = output.Body;
      const contentRange = request && output.ContentRange ? CONTENT_RANGE.exec(output.ContentRange) : null;
      if (!contentRange) return { ...infoOf(output), stream, range: null };
      const [start, end, size] = contentRange.slice(1).map(Number) as [number, number, number];
      return { ...infoOf(output, size), stream, range: { start, end } };
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: objectKey(key) }));
    },
  };
};
