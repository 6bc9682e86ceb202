import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
/** A page to screenshot, on loopback (allowed for this app). */
let pages: Server;
let pageUrl: string;

const LOCAL_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

/** Fetches an href through the test server (hrefs name the configured public base URL). */
const download = async (href: string) => {
  const url = new URL(href);
  return Buffer.from(await (await fetch(`${app.url}${url.pathname}${url.search}`)).arrayBuffer());
};

/** The decoded pixels, so files from different renders compare by what they show. */
const pixels = async (href: string) => {
  const { data, info } = await sharp(await download(href)).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
};

const pixelAt = (image: Awaited<ReturnType<typeof pixels>>, x: number, y: number) => {
  const offset = (y * image.width + x) * image.channels;
  return [...image.data.subarray(offset, offset + 3)];
};

const v1Render = (body: Record<string, unknown>, options: { key?: string; query?: string } = {}) =>
  app.call('POST', `/api/v1/render${options.query ?? ''}`, { key: options.key, body });

const createHtmlTemplate = async (key?: string) => {
  const created = await app.call('POST', '/api/v2/my-templates', { key, body: { name: 'Letter', width: 200, height: 100, editor: 'html-editor' } });
  await app.call('PUT', `/api/v2/my-templates/${created.body.identifier}/html-editor`, {
    key,
    body: { html: '<h1>{{title}}</h1>', css: 'body{background:#ffff00} h1{margin:0;font:24px "DejaVu Sans";color:#0000ff}' },
  });
  return created.body.identifier as string;
};

const createCanvasTemplate = async () => {
  const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'Canvas', width: 200, height: 100, editor: 'canvas-editor' } });
  const templateId = created.body.identifier as string;
  const put = await app.call('PUT', `/api/v2/my-templates/${templateId}/components`, {
    body: {
      components: [
        { id: 'bg', type: 'RECTANGLE', x: 0, y: 0, width: 200, height: 100, fill: '#000000' },
        { id: 'title', type: 'TEXT', x: 10, y: 10, width: 180, height: 40, text: 'Default' },
      ],
    },
  });
  expect(put.status).toBe(200);
  return templateId;
};

/** The v1 list reads the read model, which follows the log a moment behind the answers. */
const listRequests = async (key: string, expected: number, query = '') => {
  for (let i = 0; i < 50; i++) {
    const response = await app.call('GET', `/api/v1/requests${query}`, { key });
    if (response.body.length >= expected && response.body.every((record: { status: string }) => record.status !== 'PROCESSING')) return response;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the v1 list never showed ${expected} finished requests`);
};

beforeAll(async () => {
  pages = createServer((_req, res) => res.end('<html><body style="margin:0;background:#00ff00"></body></html>'));
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}/`;
  app = await startTestApp({ rendering: 'worker', env: { ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
});
afterAll(async () => {
  await app?.close();
  pages?.close();
});

describe('POST /api/v1/render (deprecated)', () => {
  it('renders an html-editor template from mergeFields: the same image as v2 with data', async () => {
    const template = await createHtmlTemplate();
    const title = `merge ${Date.now()}`;
    const v1 = await v1Render({ template, mergeFields: { title } });
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual({ requestId: expect.any(String), href: expect.stringContaining(v1.body.requestId) });
    const v2 = await app.call('POST', '/api/v2/render', { body: { template, data: { title }, cache: false } });
    expect(v2.body.requestId).not.toBe(v1.body.requestId);
    const [fromV1, fromV2] = await Promise.all([pixels(v1.body.href), pixels(v2.body.href)]);
    expect(fromV1.data.equals(fromV2.data)).toBe(true);
    const other = await pixels((await v1Render({ template, mergeFields: { title: 'something else entirely' } })).body.href);
    expect(other.data.equals(fromV1.data)).toBe(false);
  });

  it('renders a canvas template from changes, USE_SIMPLE_ARRAY and changesDictionary: the same image as v2', async () => {
    const template = await createCanvasTemplate();
    const data = { 'bg.fill': '#ff0000', 'title.text': 'Hey' };
    const forms = [
      v1Render({ template, changes: [{ id: 'bg', fill: '#ff0000' }, { id: 'title', text: 'Hey' }] }),
      v1Render(
        {
          template,
          changes: [
            { id: 'bg', property: 'fill', value: '#ff0000' },
            { id: 'title', property: 'text', value: 'Hey' },
          ],
        },
        { query: '?options=USE_SIMPLE_ARRAY' },
      ),
      v1Render({ template, changesDictionary: data }),
    ];
    const answers = [];
    for (const form of forms) answers.push(await form);
    for (const answer of answers) expect(answer.status).toBe(200);
    const v2 = await app.call('POST', '/api/v2/render', { body: { template, data, cache: false } });
    expect(v2.status).toBe(200);
    const expected = await pixels(v2.body.href);
    // The values took effect: the black rectangle is red now (JPEG leaves a little rounding).
    const [red, green, blue] = pixelAt(expected, 199, 99);
    expect(red).toBeGreaterThan(240);
    expect(green).toBeLessThan(15);
    expect(blue).toBeLessThan(15);
    for (const answer of answers) expect((await pixels(answer.body.href)).data.equals(expected.data)).toBe(true);
  });

  it.each([
    [{ changes: [{ id: 'a.b', text: 'x' }] }, '', /must not contain a dot/],
    [{ changes: [{ id: 'title', text: 'x' }] }, '?options=USE_SIMPLE_ARRAY', /property/],
    [{ changesDictionary: { title: 'x' } }, '', /<componentId>\.<property>/],
    [{}, '?options=SOMETHING', /options/],
    [{ mergeFields: 'title' }, '', /mergeFields/],
    [{ surprise: 1 }, '', /surprise/],
  ])('answers 400 for %j%s', async (body, query, pattern) => {
    const template = await createHtmlTemplate();
    const response = await v1Render({ template, ...body }, { query });
    expect(response.status).toBe(400);
    expect(response.body.errors.join('\n')).toMatch(pattern);
  });

  it('answers 400 for a canvas property the template does not have', async () => {
    const template = await createCanvasTemplate();
    const response = await v1Render({ template, changes: [{ id: 'bg', colour: '#ff0000' }] });
    expect(response.status).toBe(400);
    expect(response.body.errors.join('\n')).toContain('bg.colour');
  });
});

describe('GET /api/v1/requests (deprecated)', () => {
  it('lists renders as images and captures as screenshots, newest first', async () => {
    const key = await app.newOrganizationKey();
    const template = await createHtmlTemplate(key);
    const rendered = await v1Render({ template, mergeFields: { title: 'listed' } }, { key });
    const captured = await app.call('POST', '/api/v1/screenshots', { key, body: { url: pageUrl, width: 120, height: 80 } });
    expect(captured.status).toBe(200);

    const { body: records } = await listRequests(key, 2);
    expect(records).toEqual([
      {
        identifier: captured.body.requestId,
        href: captured.body.href,
        executeUrl: pageUrl,
        status: 'OK',
        width: 120,
        height: 80,
        type: 'screenshot',
        createdAt: expect.stringMatching(LOCAL_TIMESTAMP),
      },
      {
        identifier: rendered.body.requestId,
        href: rendered.body.href,
        status: 'OK',
        width: 200,
        height: 100,
        type: 'image',
        template,
        templateName: 'Letter',
        changes: [],
        createdAt: expect.stringMatching(LOCAL_TIMESTAMP),
      },
    ]);
    expect((await app.call('GET', '/api/v1/requests?limit=1', { key })).body.map((record: { identifier: string }) => record.identifier)).toEqual([
      captured.body.requestId,
    ]);
    expect((await app.call('GET', '/api/v1/requests?limit=1&offset=1', { key })).body.map((record: { identifier: string }) => record.identifier)).toEqual([
      rendered.body.requestId,
    ]);
  });

  it('shows the changes of a canvas render in v1 form', async () => {
    const template = await createCanvasTemplate();
    const key = app.apiKey;
    const rendered = await v1Render({ template, changesDictionary: { 'bg.fill': '#00ff00', 'title.text': 'Listed' } }, { key });
    expect(rendered.status).toBe(200);
    const { body: records } = await listRequests(key, 1, '?limit=100');
    expect(records.find((record: { identifier: string }) => record.identifier === rendered.body.requestId)).toMatchObject({
      type: 'image',
      template,
      changes: [{ id: 'bg', fill: '#00ff00' }, { id: 'title', text: 'Listed' }],
    });
  });

  it.each(['limit=0', 'limit=101', 'offset=-1', 'limit=x'])('answers 400 for %s', async (query) => {
    const response = await app.call('GET', `/api/v1/requests?${query}`);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ status: 400, msg: expect.any(String) });
  });
});

describe('deprecation headers', () => {
  const successors: [string, string, string][] = [
    ['POST', '/api/v1/render', '/api/v2/render'],
    ['GET', '/api/v1/requests', '/api/v2/results'],
  ];

  it.each(successors)('%s %s names its successor %s, on success and on errors alike', async (method, path, successor) => {
    const template = await createHtmlTemplate();
    const answers = [
      await app.call(method, path, { body: method === 'POST' ? { template, mergeFields: { title: 'x' } } : undefined }),
      await app.call(method, path, { body: method === 'POST' ? { template: '' } : undefined, headers: {}, key: 'rk_wrong' }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 403]);
    for (const answer of answers) {
      expect(answer.headers.get('deprecation')).toMatch(/^@\d+$/);
      expect(answer.headers.get('link')).toBe(`<${successor}>; rel="successor-version"`);
    }
  });

  it('leaves paths that are not deprecated alone', async () => {
    const answers = [
      await app.call('POST', '/api/v1/screenshots', { body: { url: pageUrl, width: 40, height: 40 } }),
      await app.call('GET', '/api/v2/results'),
      await app.call('GET', '/api/v1/usage'),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.headers.get('deprecation')).toBeNull();
    }
  });
});

describe('OpenAPI', () => {
  it('documents the captures and marks the v1 render and requests list deprecated', async () => {
    const document = (await app.call('GET', '/openapi.json', { key: null })).body;
    expect(document.paths['/api/v1/render'].post.deprecated).toBe(true);
    expect(document.paths['/api/v1/requests'].get.deprecated).toBe(true);
    expect(document.paths['/api/v1/screenshots'].post.deprecated).toBeUndefined();
    expect(document.components.schemas.ScreenshotRequest.properties.width).toMatchObject({ minimum: 32, maximum: 5000 });
    expect(document.components.schemas.PdfRequest.properties.format.enum).toEqual(['A0', 'A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'Letter', 'Legal', 'Tabloid', 'Ledger']);
  });
});
