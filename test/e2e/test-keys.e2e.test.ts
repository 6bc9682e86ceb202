import { access } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_RESULT_SECONDS } from '../../domain/renders/test-mode.js';
import { createResultLinks } from '../../infrastructure/storage/signed-links.js';
import { loadSigningSecret } from '../../infrastructure/storage/signing-secret.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait-for.js';

/*
 * A test key builds an integration without paying for it: its renders and captures are free, carry
 * TEST across them, say `test: true`, and their links end after a day, when the result and its file
 * are deleted; a live key's stay as they were.
 */

let app: TestApp;
let orgId: string;
let testKey: string;
let template: string;
let pageServer: Server;
let pageUrl: string;

beforeAll(async () => {
  // Housekeeping, which deletes expired test results, every half second rather than every minute.
  app = await startTestApp({ rendering: 'worker', env: { ALLOWED_PRIVATE_HOSTS: '127.0.0.1', PENDING_REPAIR_INTERVAL_MS: '500' } });
  orgId = (await app.call('GET', '/trpc/ping')).body.result.data.orgId as string;
  testKey = (await app.runtime.services.accounts.issueApiKey(orgId, { label: 'integration', test: true })).key;
  const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'Blank', width: 400, height: 200, editor: 'html-editor', outputFormat: 'png' } });
  template = created.body.identifier as string;
  await app.call('PUT', `/api/v2/my-templates/${template}/html-editor`, { body: { html: '<p style="margin:0;font-size:10px">{{name}}</p>', css: '', sampleData: { name: 'x' } } });
  pageServer = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><body style="margin:0;background:#fff"></body>'));
  await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => pageServer?.close(resolve));
});

const creditsUsed = async () => (await app.call('GET', '/api/v1/usage')).body.credits.used as number;

/** Pixels of the image that are clearly red: the watermark's colour over white. */
const redPixels = async (image: Buffer) => {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let red = 0;
  for (let offset = 0; offset < data.length; offset += info.channels) {
    const [r, g, b] = [data[offset] ?? 0, data[offset + 1] ?? 0, data[offset + 2] ?? 0];
    if (r > 200 && g < 190 && b < 190) red++;
  }
  return red / (info.width * info.height);
};

describe('test keys', () => {
  it("renders free, watermarked and flagged, never from or into a live render's cache, with a link that ends after a day", async () => {
    const data = { name: 'Ada' };
    const live = await app.call('POST', '/api/v2/render', { body: { template, data } });
    expect(live.status).toBe(200);
    expect(await redPixels(await app.download(live.body.href as string))).toBe(0);
    const before = await creditsUsed();

    const rendered = await app.call('POST', '/api/v2/render', { key: testKey, body: { template, data } });
    expect(rendered.status, JSON.stringify(rendered.body)).toBe(200);
    expect(await redPixels(await app.download(rendered.body.href as string))).toBeGreaterThan(0.02);
    expect(await creditsUsed()).toBe(before);

    const result = (await app.call('GET', `/api/v2/results/${rendered.body.requestId as string}`, { key: testKey })).body;
    expect(result).toMatchObject({ test: true, credits: 0, cached: false });
    expect((await app.call('GET', `/api/v2/results/${live.body.requestId as string}`)).body.test).toBeUndefined();

    // Its link ends a day after the render: valid a second before, refused a second after.
    const href = new URL(rendered.body.href as string);
    const expires = Number(href.searchParams.get('expires'));
    const createdAt = Math.floor(new Date(result.createdAt as string).getTime() / 1000);
    expect(expires).toBe(createdAt + TEST_RESULT_SECONDS);
    const config = app.runtime.config;
    const links = createResultLinks({ baseUrl: 'http://x', secret: await loadSigningSecret({ configured: config.URL_SIGNING_SECRET, dataDir: config.DATA_DIR }) });
    const [, , requestId, fileName] = href.pathname.split('/').map(decodeURIComponent);
    const query = { expires: href.searchParams.get('expires') ?? undefined, signature: href.searchParams.get('signature') ?? undefined };
    expect(links.verify(requestId ?? '', fileName ?? '', query, expires - 1, true)).toBe(true);
    expect(links.verify(requestId ?? '', fileName ?? '', query, expires + 1, true)).toBe(false);

    // The live key's next render of the same data is still its own unmarked file from the cache.
    const again = await app.call('POST', '/api/v2/render', { body: { template, data } });
    expect(await redPixels(await app.download(again.body.href as string))).toBe(0);
  });

  it('captures free and watermarked', async () => {
    const before = await creditsUsed();
    const captured = await app.call('POST', '/api/v1/screenshots', { key: testKey, body: { url: pageUrl, width: 400, height: 300 } });
    expect(captured.status, JSON.stringify(captured.body)).toBe(200);
    expect(await redPixels(await app.download(captured.body.href as string))).toBeGreaterThan(0.02);
    expect(await creditsUsed()).toBe(before);
    const live = await app.call('POST', '/api/v1/screenshots', { body: { url: pageUrl, width: 400, height: 300 } });
    expect(await redPixels(await app.download(live.body.href as string))).toBe(0);
  });

  it('deletes a test result and its file once its link has expired, and leaves a live one of the same age', async () => {
    const storedFile = (href: string) => {
      const [, , requestId, fileName] = new URL(href).pathname.split('/').map(decodeURIComponent);
      return path.join(app.runtime.config.DATA_DIR, 'files', orgId, requestId ?? '', fileName ?? '');
    };
    const onDisk = (file: string) => access(file).then(() => true, () => false);
    const body = { template, data: { name: 'Brief' }, expires: 1, cache: false };
    const tried = await app.call('POST', '/api/v2/render', { key: testKey, body });
    const live = await app.call('POST', '/api/v2/render', { body });
    expect(tried.status, JSON.stringify(tried.body)).toBe(200);
    expect(live.status, JSON.stringify(live.body)).toBe(200);
    expect(await onDisk(storedFile(tried.body.href as string))).toBe(true);

    const gone = async () => ((await app.call('GET', `/api/v2/results/${tried.body.requestId as string}`, { key: testKey })).status === 404 ? true : undefined);
    await waitFor('the expired test result to be deleted', gone, 15_000);
    expect(await onDisk(storedFile(tried.body.href as string))).toBe(false);
    const kept = await app.call('GET', `/api/v2/results/${live.body.requestId as string}`);
    expect(kept.status).toBe(200);
    expect(await onDisk(storedFile(live.body.href as string))).toBe(true);
  });
});
