import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/expect-error.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Every resource a request asks for has a budget, refused with a 400 (402 for the account's own
 * quotas) naming the limit, before anything is written or charged.
 */
let app: TestApp;

beforeAll(async () => {
  // One byte of upload storage: the first stored file fills the quota.
  app = await startTestApp({ rendering: 'worker', env: { DEFAULT_UPLOADS_BYTES: '1' } });
});
afterAll(async () => app?.close());

const createTemplate = (body: Record<string, unknown>, key?: string) =>
  app.call('POST', '/api/v2/my-templates', { key, body: { name: 'Budget', editor: 'html-editor', width: 100, height: 100, ...body } });

const templateCount = async (key?: string) => ((await app.call('GET', '/api/v2/my-templates?size=50', { key })).body as unknown[]).length;

const usage = async (key?: string) => (await app.call('GET', '/api/v1/usage', { key })).body;

const resultCount = async (key?: string) => (await app.call('GET', '/api/v2/results', { key })).body.totalElements as number;

const htmlTemplate = async (key: string, html = '<p>budget</p>') => {
  const created = await createTemplate({}, key);
  expect(created.status).toBe(200);
  const id = created.body.identifier as string;
  expect((await app.call('PUT', `/api/v2/my-templates/${id}/html-editor`, { key, body: { html } })).status).toBe(200);
  return id;
};

describe('pixel budget (width x height x scaleFactor^2)', () => {
  it('refuses a template too large to render when it is created, and stores nothing', async () => {
    const key = await app.newOrganizationKey();
    expectError(await createTemplate({ width: 5000, height: 5000, scaleFactor: 4 }, key), 400, /width x height x scaleFactor\^2: 5000 x 5000 x 4\^2 is 400000000 pixels; at most 50000000/);
    expectError(await createTemplate({ width: 5000, height: 200, scaleFactor: 4 }, key), 400, /each side at most 16384/);
    expect(await templateCount(key)).toBe(0);
    // At the budget exactly it is accepted.
    expect((await createTemplate({ width: 5000, height: 5000, scaleFactor: 1.4 }, key)).status).toBe(200);
  });

  it('bounds scaleFactor at both ends, and below one device pixel', async () => {
    const key = await app.newOrganizationKey();
    expectError(await createTemplate({ scaleFactor: 0 }, key), 400, /scaleFactor/);
    expectError(await createTemplate({ scaleFactor: 4.5 }, key), 400, /scaleFactor/);
    expectError(await createTemplate({ width: 1, height: 1, scaleFactor: 0.1 }, key), 400, /less than one pixel/);
    expect(await templateCount(key)).toBe(0);
  });

  it('refuses a PATCH that would exceed it, leaving the template as it was', async () => {
    const key = await app.newOrganizationKey();
    const created = await createTemplate({ width: 4000, height: 4000 }, key);
    const id = created.body.identifier as string;
    expectError(await app.call('PATCH', `/api/v2/my-templates/${id}`, { key, body: { scaleFactor: 2 } }), 400, /at most 50000000/);
    const read = (await app.call('GET', `/api/v2/my-templates/${id}`, { key })).body;
    expect(read.scaleFactor).toBe(1);
    expect(read.updatedAt).toBe(created.body.updatedAt);
  });

  it('holds a video frame to 4K UHD, also when a render turns an image template into a video', async () => {
    const key = await app.newOrganizationKey();
    expectError(await createTemplate({ editor: 'canvas-html', width: 4000, height: 2400, outputFormat: 'mp4' }, key), 400, /at most 8294400 for a video frame/);
    const image = await createTemplate({ editor: 'canvas-html', width: 4000, height: 2400 }, key);
    expect(image.status).toBe(200);
    const before = await usage(key);
    expectError(await app.call('POST', '/api/v2/render', { key, body: { template: image.body.identifier, outputFormat: 'mp4' } }), 400, /video frame/);
    expect((await usage(key)).credits.used).toBe(before.credits.used);
    expect(await resultCount(key)).toBe(0);
  });
});

describe('values a component cannot hold', () => {
  const qrDocument = (value: string) => ({ components: [{ id: 'qr', type: 'QR_CODE', x: 0, y: 0, width: 100, height: 100, value }] });

  it('refuses a QR value over the code capacity in the document and in render data, before any charge', async () => {
    const key = await app.newOrganizationKey();
    const created = await createTemplate({ editor: 'canvas-editor' }, key);
    const id = created.body.identifier as string;
    // 1,000 characters pass the schema's 2,000; as UTF-8 they are 3,000 bytes, over the 2,331 a code holds.
    const tooMuch = '漢'.repeat(1000);
    expectError(await app.call('PUT', `/api/v2/my-templates/${id}/components`, { key, body: qrDocument(tooMuch) }), 400, /\(id 'qr'\)\.value: holds 3000 bytes once encoded; a QR code holds at most 2331/);
    expect((await app.call('PUT', `/api/v2/my-templates/${id}/components`, { key, body: qrDocument('https://example.com') })).status).toBe(200);

    const before = await usage(key);
    expectError(await app.call('POST', '/api/v2/render', { key, body: { template: id, data: { 'qr.value': tooMuch } } }), 400, /data\.qr\.value: holds 3000 bytes/);
    expect((await usage(key)).credits.used).toBe(before.credits.used);
    expect(await resultCount(key)).toBe(0);
  });
});

describe('request fields stored in the log', () => {
  it('bounds metadata and data, naming the field, with nothing stored or charged', async () => {
    const key = await app.newOrganizationKey();
    const id = await htmlTemplate(key);
    const before = await usage(key);
    const metadata = { note: 'x'.repeat(17 * 1024) };
    expectError(await app.call('POST', '/api/v2/render', { key, body: { template: id, metadata } }), 400, /metadata: \d+ bytes of JSON; at most 16384/);
    const data = { text: 'y'.repeat(600 * 1024) };
    expectError(await app.call('POST', '/api/v2/render', { key, body: { template: id, data } }), 400, /data: \d+ bytes of JSON; at most 524288/);
    expect((await usage(key)).credits.used).toBe(before.credits.used);
    expect(await resultCount(key)).toBe(0);
  });

  it('bounds the sample data of html content', async () => {
    const key = await app.newOrganizationKey();
    const id = await htmlTemplate(key, '<p>{{a}}</p>');
    const put = await app.call('PUT', `/api/v2/my-templates/${id}/html-editor`, { key, body: { html: '<p>{{a}}</p>', sampleData: { a: 'z'.repeat(600 * 1024) } } });
    expectError(put, 400, /sampleData: \d+ bytes of JSON; at most 524288/);
    expect((await app.call('GET', `/api/v2/my-templates/${id}/html-editor`, { key })).body.sampleData).toEqual({});
  });
});

describe('upload storage quota', () => {
  it('refuses new files once the quota is used, still answers from the cache, and makes room when a result is deleted', async () => {
    const key = await app.newOrganizationKey();
    const id = await htmlTemplate(key);
    const first = await app.call('POST', '/api/v2/render', { key, body: { template: id } });
    expect(first.status).toBe(200);
    const used = await usage(key);
    expect(used.uploads.used).toBeGreaterThan(used.uploads.total);

    const refused = await app.call('POST', '/api/v2/render', { key, body: { template: id, cache: false } });
    expectError(refused, 402, /uploads: \d+ of 1 bytes used/);
    expect((await usage(key)).credits.used).toBe(used.credits.used);

    // A cache hit stores no new file: it is still answered.
    const hit = await app.call('POST', '/api/v2/render', { key, body: { template: id } });
    expect(hit.status).toBe(200);
    expect(hit.body.cached).toBe(true);

    expect((await app.call('DELETE', `/api/v2/results/${first.body.requestId}`, { key })).status).toBe(200);
    const again = await app.call('POST', '/api/v2/render', { key, body: { template: id, cache: false } });
    expect(again.status).toBe(200);
  });
});

describe('cache hits of large requests', () => {
  it('store a reference to the data instead of a fresh copy, and still show the request as it was sent', async () => {
    const key = await app.newOrganizationKey();
    const id = await htmlTemplate(key, '<p>{{a}}</p>');
    const data = { a: 'x'.repeat(200 * 1024) };
    const first = await app.call('POST', '/api/v2/render', { key, body: { template: id, data } });
    expect(first.status).toBe(200);
    const hits = [];
    for (let index = 0; index < 3; index++) {
      const hit = await app.call('POST', '/api/v2/render', { key, body: { template: id, data, metadata: { index } } });
      expect(hit.body.cached).toBe(true);
      hits.push(hit.body.requestId as string);
    }
    for (const hitId of hits) {
      const [requested] = await app.runtime.eventStore.readStream(`render-${hitId}`);
      expect(requested?.type).toBe('RenderServedFromCache');
      // The hit's one event is a few hundred bytes, not another 200 KiB copy.
      expect(JSON.stringify(requested?.data).length).toBeLessThan(2048);
      expect(requested?.data).toMatchObject({ dataFrom: first.body.requestId, spec: { data: {} } });
    }
    // A small request's hit keeps its data inline: a lookup would cost more than the bytes. (Another
    // organization: this one's upload quota of one byte is used.)
    const otherKey = await app.newOrganizationKey();
    const otherId = await htmlTemplate(otherKey, '<p>{{a}}</p>');
    expect((await app.call('POST', '/api/v2/render', { key: otherKey, body: { template: otherId, data: { a: 'small' } } })).status).toBe(200);
    const smallHit = await app.call('POST', '/api/v2/render', { key: otherKey, body: { template: otherId, data: { a: 'small' } } });
    expect(smallHit.body.cached).toBe(true);
    const [smallRequested] = await app.runtime.eventStore.readStream(`render-${smallHit.body.requestId}`);
    expect(smallRequested?.data).toMatchObject({ dataFrom: null, spec: { data: { a: 'small' } } });

    const history = await app.call('GET', '/api/v2/audit/history?size=50', { key });
    expect(history.status).toBe(200);
    const rows = new Map(history.body.items.map((row: { requestId: string }) => [row.requestId, row]));
    for (const hitId of hits) {
      expect(rows.get(hitId)).toMatchObject({ data, request: { template: id, data }, dataFrom: first.body.requestId, file: { cached: true } });
    }
  });
});
