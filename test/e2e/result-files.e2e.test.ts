import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileStorage } from '../../application/ports/file-storage.js';
import { createFileStorage } from '../../infrastructure/storage/create-file-storage.js';
import { createTestBucket, type TestBucket } from '../support/s3.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** Downloads through GET /files behave alike whichever storage holds the files. */
describe.each(['local', 's3'] as const)('result files with STORAGE=%s', (storageKind) => {
  let app: TestApp;
  let bucket: TestBucket | undefined;
  /** The same storage the service writes to, opened beside it to see what it stored. */
  let storage: FileStorage;

  beforeAll(async () => {
    if (storageKind === 's3') bucket = await createTestBucket();
    app = await startTestApp({ rendering: 'worker', env: bucket?.env ?? {} });
    storage = createFileStorage(app.runtime.config);
  });
  afterAll(async () => {
    await app?.close();
    await bucket?.remove();
  });

  /** Fetches an href through the test server (hrefs name the configured public base URL). */
  const download = async (href: string, headers: Record<string, string> = {}) => {
    const url = new URL(href);
    const response = await fetch(`${app.url}${url.pathname}${url.search}`, { headers });
    return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
  };

  it('stores a render, serves it whole, by range and conditionally, and deletes it with the result', async () => {
    const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'Banner', width: 200, height: 100, editor: 'html-editor' } });
    const templateId = created.body.identifier as string;
    await app.call('PUT', `/api/v2/my-templates/${templateId}/html-editor`, { body: { html: '<h1>{{title}}</h1>', css: 'body{background:#ff0000}', sampleData: { title: 'S3' } } });
    const rendered = await app.call('POST', '/api/v2/render', { body: { template: templateId, outputFormat: 'png', cache: false } });
    expect(rendered.status).toBe(200);
    const { requestId, href } = rendered.body as { requestId: string; href: string };
    const caller = await app.runtime.services.accounts.authenticate(app.apiKey);
    const key = `${caller?.orgId}/${requestId}/${decodeURIComponent(new URL(href).pathname.split('/').at(-1) ?? '')}`;
    const stored = await storage.stat(key);
    expect(stored).not.toBeNull();
    if (bucket) {
      // In the bucket itself, where any other host reads it.
      const object = await bucket.client.send(new HeadObjectCommand({ Bucket: bucket.options.bucket, Key: key }));
      expect(object).toMatchObject({ ContentType: 'image/png', ContentLength: stored?.size, ETag: stored?.etag });
    }

    const whole = await download(href);
    expect(whole.status).toBe(200);
    expect(whole.bytes.subarray(1, 4).toString()).toBe('PNG');
    expect(whole.headers.get('content-type')).toBe('image/png');
    expect(whole.headers.get('content-length')).toBe(String(stored?.size));
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(whole.headers.get('etag')).toBe(stored?.etag);
    const etag = stored?.etag ?? '';

    const ranged = await download(href, { Range: 'bytes=8-23' });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes 8-23/${whole.bytes.length}`);
    expect(ranged.headers.get('content-length')).toBe('16');
    expect(ranged.bytes.equals(whole.bytes.subarray(8, 24))).toBe(true);

    const tail = await download(href, { Range: 'bytes=-12' });
    expect(tail.status).toBe(206);
    expect(tail.bytes.equals(whole.bytes.subarray(-12))).toBe(true);

    // If-Range could make the range depend on the version: the whole file is always a right answer.
    expect((await download(href, { Range: 'bytes=0-1', 'If-Range': '"another"' })).status).toBe(200);
    // Several ranges or a malformed one: the whole file rather than a multipart answer.
    expect((await download(href, { Range: 'bytes=0-1,4-5' })).status).toBe(200);

    const beyond = await download(href, { Range: `bytes=${whole.bytes.length}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${whole.bytes.length}`);
    expect(JSON.parse(beyond.bytes.toString())).toMatchObject({ status: 416 });

    const revalidated = await download(href, { 'If-None-Match': `W/"other", ${etag}` });
    expect(revalidated.status).toBe(304);
    expect(revalidated.bytes.length).toBe(0);
    expect(revalidated.headers.get('etag')).toBe(etag);
    expect((await download(href, { 'If-None-Match': '"some-other-version"' })).status).toBe(200);

    expect((await app.call('DELETE', `/api/v2/results/${requestId}`)).status).toBe(200);
    expect(await storage.stat(key)).toBeNull();
    if (bucket) {
      await expect(bucket.client.send(new HeadObjectCommand({ Bucket: bucket.options.bucket, Key: key }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
    }
    expect((await download(href)).status).toBe(404);
  });
});
