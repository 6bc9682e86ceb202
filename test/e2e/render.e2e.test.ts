import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTRPCClient, httpLink } from '@trpc/client';
import sharp from 'sharp';
import type { AppRouter } from '../../interfaces/trpc/app-router.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
let templateId: string;

const MAGIC: Record<string, (bytes: Buffer) => boolean> = {
  png: (bytes) => bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  jpeg: (bytes) => bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff,
  webp: (bytes) => bytes.subarray(0, 4).toString() === 'RIFF' && bytes.subarray(8, 12).toString() === 'WEBP',
  pdf: (bytes) => bytes.subarray(0, 5).toString() === '%PDF-',
};

/** Fetches an href through the test server (hrefs name the configured public base URL). */
const download = async (href: string) => {
  const url = new URL(href);
  const response = await fetch(`${app.url}${url.pathname}${url.search}`);
  return { status: response.status, type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
};

/** Red and green of the bottom-right pixel of the image at href. */
const bottomRightPixel = async (href: string) => {
  const { data, info } = await sharp((await download(href)).bytes).raw().toBuffer({ resolveWithObject: true });
  const offset = (info.width * info.height - 1) * info.channels;
  return [data[offset], data[offset + 1]];
};

const createTemplate = async (key: string, html: string, size = { width: 200, height: 100 }) => {
  const created = await app.call('POST', '/api/v2/my-templates', { key, body: { name: 'Banner', ...size, editor: 'html-editor' } });
  await app.call('PUT', `/api/v2/my-templates/${created.body.identifier}/html-editor`, {
    key,
    body: { html, css: 'body{background:#ff0000} h1{color:#0000ff;margin:0;font:20px "DejaVu Sans"}', sampleData: { title: 'Sample' } },
  });
  return created.body.identifier as string;
};

const render = (body: Record<string, unknown>, options: { key?: string; query?: string } = {}) =>
  app.call('POST', `/api/v2/render${options.query ?? ''}`, { key: options.key, body: { template: templateId, ...body } });

const usage = async (key?: string) => (await app.call('GET', '/api/v1/usage', { key })).body;

beforeAll(async () => {
  // The webhook receiver below listens on loopback, which is private unless allowed.
  app = await startTestApp({ rendering: 'worker', env: { ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
  templateId = await createTemplate(app.apiKey, '<h1>{{title}}</h1>');
});
afterAll(async () => {
  await app?.close();
});

describe('POST /api/v2/render', () => {
  it.each(['png', 'jpeg', 'webp'])('renders %s with the template size and its pixels', async (format) => {
    const response = await render({ outputFormat: format, cache: false });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ requestId: expect.any(String), href: expect.stringContaining(response.body.requestId) });
    const file = await download(response.body.href);
    expect(file.status).toBe(200);
    expect(MAGIC[format]?.(file.bytes)).toBe(true);
    const { data, info } = await sharp(file.bytes).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([200, 100]);
    // Bottom-right corner is page background: red, whatever the lossy format did to it.
    const offset = ((info.height - 1) * info.width + (info.width - 1)) * info.channels;
    expect(data[offset]).toBeGreaterThan(200);
    expect(data[offset + 1]).toBeLessThan(60);
    expect(data[offset + 2]).toBeLessThan(60);
  });

  it('renders a PDF', async () => {
    const response = await render({ outputFormat: 'pdf', cache: false });
    const file = await download(response.body.href);
    expect(file.type).toBe('application/pdf');
    expect(MAGIC.pdf?.(file.bytes)).toBe(true);
  });

  it('answers the image itself with output=image, cropped from the top-left', async () => {
    const response = await fetch(`${app.url}/api/v2/render?output=image`, {
      method: 'POST',
      headers: { 'x-api-key': app.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ template: templateId, outputFormat: 'png', width: 50, height: 40, cache: false }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    const metadata = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
    expect([metadata.width, metadata.height]).toEqual([50, 40]);
  });

  it('answers an identical request from the cache for free; cache=false and a new version render again', async () => {
    const data = { title: `cache ${Date.now()}` };
    const before = (await usage()).credits.used;
    const first = await render({ data, outputFormat: 'png' });
    const second = await render({ data, outputFormat: 'png' });
    expect(first.body.cached).toBeUndefined();
    expect(second.body).toMatchObject({ cached: true });
    expect(second.body.requestId).not.toBe(first.body.requestId);
    expect((await download(second.body.href)).bytes.equals((await download(first.body.href)).bytes)).toBe(true);
    expect((await usage()).credits.used).toBe(before + 1);

    const uncached = await render({ data, outputFormat: 'png', cache: false });
    const versioned = await render({ data, outputFormat: 'png', version: 'v2' });
    expect(uncached.body.cached).toBeUndefined();
    expect(versioned.body.cached).toBeUndefined();
    expect((await usage()).credits.used).toBe(before + 3);
  });

  it('renders an edited template with its new content at once: the template is never served stale from memory', async () => {
    const key = await app.newOrganizationKey();
    const edited = await createTemplate(key, '<h1>{{title}}</h1>');
    const data = { title: 'same data' };
    const first = await app.call('POST', '/api/v2/render', { key, body: { template: edited, data, outputFormat: 'png' } });
    expect((await app.call('POST', '/api/v2/render', { key, body: { template: edited, data, outputFormat: 'png' } })).body.cached).toBe(true);

    await app.call('PUT', `/api/v2/my-templates/${edited}/html-editor`, { key, body: { html: '<h1>{{title}}</h1>', css: 'body{background:#00ff00}' } });
    const after = await app.call('POST', '/api/v2/render', { key, body: { template: edited, data, outputFormat: 'png' } });
    expect(after.body.cached).toBeUndefined();
    // Bottom-right is background: red before the edit, green after.
    expect(await bottomRightPixel(first.body.href)).toEqual([expect.toSatisfy((r: number) => r > 200), expect.toSatisfy((g: number) => g < 60)]);
    expect(await bottomRightPixel(after.body.href)).toEqual([expect.toSatisfy((r: number) => r < 60), expect.toSatisfy((g: number) => g > 200)]);
  });

  it('lists the render in results with its metadata and batch', async () => {
    const response = await render({ metadata: { order: 42 }, batchName: 'spring', cache: false });
    const detail = await app.call('GET', `/api/v2/results/${response.body.requestId}`);
    expect(detail.body).toMatchObject({ identifier: response.body.requestId, status: 'done', width: 200, height: 100, metadata: { order: 42 } });
    const batch = await app.call('GET', '/api/v2/results?batch=spring');
    expect(batch.body.content.map((item: { identifier: string }) => item.identifier)).toContain(response.body.requestId);
  });

  it('answers 402 before any work when credits are short', async () => {
    const orgId = await app.runtime.services.accounts.openOrganization({ name: 'poor', credits: 1 });
    const { key } = await app.runtime.services.accounts.issueApiKey(orgId, { label: 'poor' });
    const ownTemplate = await createTemplate(key, '<p>x</p>');
    expect((await render({ template: ownTemplate, cache: false }, { key })).status).toBe(200);
    const refused = await render({ template: ownTemplate, cache: false }, { key });
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ status: 402, msg: expect.any(String) });
    expect((await usage(key)).credits).toMatchObject({ used: 1, total: 1 });
    expect((await app.call('GET', '/api/v2/results', { key })).body.totalElements).toBe(1);
  });

  it.each([
    [{ waitTime: 5001 }, /waitTime/],
    [{ waitTime: -1 }, /waitTime/],
    [{ expires: 0 }, /expires/],
    [{ expires: 604801 }, /expires/],
    [{ outputFormat: 'gif' }, /outputFormat/],
    [{ outputFormat: 'mp4' }, /canvas-html/],
    [{ template: '' }, /template/],
    [{ template: 'missing' }, /missing/],
    [{ webhookUrl: 'ftp://example.com' }, /webhookUrl/],
    [{ width: 0 }, /width/],
    [{ fileName: '../etc/passwd' }, /fileName/],
    [{ surprise: true }, /surprise/],
  ])('answers 400 for %j', async (body, pattern) => {
    const response = await render(body);
    expect(response.status).toBe(400);
    expect(response.body.errors.join('\n')).toMatch(pattern);
  });

  it('answers 403 without a key', async () => {
    expect((await render({}, { key: null as unknown as string })).status).toBe(403);
  });
});

describe('GET /img/{templateId}.jpg', () => {
  it('renders with query values and the key in the query', async () => {
    const response = await fetch(`${app.url}/img/${templateId}.jpg?title=Hello&apiKey=${app.apiKey}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/jpeg');
    expect(MAGIC.jpeg?.(Buffer.from(await response.arrayBuffer()))).toBe(true);
  });

  it('is 403 without a valid key', async () => {
    expect((await fetch(`${app.url}/img/${templateId}.jpg?title=Hello`)).status).toBe(403);
    expect((await fetch(`${app.url}/img/${templateId}.jpg?apiKey=nope`)).status).toBe(403);
  });
});

describe('webhooks and other ways in', () => {
  it('answers at once with a webhookUrl and POSTs { requestId, href, request } when done', async () => {
    const received: unknown[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push(JSON.parse(body));
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const response = await render({ webhookUrl, cache: false, metadata: { ref: 'w1' } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ requestId: expect.any(String), href: expect.any(String) });
      for (let i = 0; i < 100 && received.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(received).toEqual([
        // Created, then its content set: version 2.
        { requestId: response.body.requestId, href: response.body.href, request: expect.objectContaining({ template: templateId, webhookUrl }), templateVersion: 2 },
      ]);
      expect(MAGIC.jpeg?.((await download(response.body.href)).bytes)).toBe(true);
    } finally {
      receiver.close();
    }
  });

  it('renders through the typed tRPC client', async () => {
    const client = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${app.url}/trpc`, headers: { 'x-api-key': app.apiKey } })] });
    const answer = await client.render.mutate({ template: templateId, outputFormat: 'png', cache: false });
    expect(MAGIC.png?.((await download(answer.href)).bytes)).toBe(true);
  });

  it('documents render in the OpenAPI document', async () => {
    const document = (await app.call('GET', '/openapi.json', { key: null })).body;
    expect(document.paths['/api/v2/render'].post.requestBody.content['application/json'].schema.$ref).toContain('RenderRequest');
    expect(document.components.schemas.RenderRequest.properties.waitTime).toMatchObject({ maximum: 5000 });
  });
});
