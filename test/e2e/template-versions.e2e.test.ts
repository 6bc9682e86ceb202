import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/expect-error.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
let templateId: string;

/** The image's width and the red, green and blue of its top-left pixel. */
const pixelsOf = async (href: string) => {
  const { data, info } = await sharp(await app.download(href)).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, rgb: [data[0], data[1], data[2]] };
};

const WHITE = [255, 255, 255];
const RED = [255, 0, 0];
const GREEN = [0, 255, 0];
const BLUE = [0, 0, 255];

const paint = (colour: string) =>
  app.call('PUT', `/api/v2/my-templates/${templateId}/html-editor`, { body: { html: `<div></div>`, css: `html,body{margin:0;background:${colour}}` } });

const render = async (body: Record<string, unknown> = {}) => {
  const response = await app.call('POST', '/api/v2/render', { body: { template: templateId, ...body } });
  expect(response.status).toBe(200);
  return response.body as { requestId: string; href: string; cached?: boolean };
};

beforeAll(async () => {
  app = await startTestApp({ rendering: 'worker' });
  const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'Swatch', width: 100, height: 50, editor: 'html-editor', outputFormat: 'png' } });
  templateId = created.body.identifier;
  expect(created.body).toMatchObject({ version: 1 });
  expect(created.body).not.toHaveProperty('publishedVersion');
  // Three edits: content twice, then a setting; versions 2, 3 and 4.
  expect((await paint('#ff0000')).status).toBe(200);
  expect((await paint('#00ff00')).status).toBe(200);
  const patched = await app.call('PATCH', `/api/v2/my-templates/${templateId}`, { body: { width: 80 } });
  expect(patched.body).toMatchObject({ version: 4, width: 80 });
});
afterAll(async () => {
  await app?.close();
});

describe('template versions', () => {
  it('lists every version newest first, paged, with what each changed', async () => {
    const page = await app.call('GET', `/api/v2/my-templates/${templateId}/versions?size=3`);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ totalElements: 4, totalPages: 2, number: 0, size: 3, first: true, last: false });
    expect(page.body.content).toEqual([
      { version: 4, createdAt: expect.any(String), createdBy: 'API', changed: ['settings'], published: false },
      { version: 3, createdAt: expect.any(String), createdBy: 'API', changed: ['content'], published: false },
      { version: 2, createdAt: expect.any(String), createdBy: 'API', changed: ['content'], published: false },
    ]);
    const rest = await app.call('GET', `/api/v2/my-templates/${templateId}/versions?size=3&page=1`);
    expect(rest.body.content).toEqual([{ version: 1, createdAt: expect.any(String), createdBy: 'API', changed: [], published: false }]);
  });

  it('reads a template as a version had it, content included', async () => {
    const second = await app.call('GET', `/api/v2/my-templates/${templateId}/versions/2`);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ identifier: templateId, version: 2, width: 100, changed: ['content'], content: { css: expect.stringContaining('#ff0000') } });
    const first = await app.call('GET', `/api/v2/my-templates/${templateId}/versions/1`);
    expect(first.body).toMatchObject({ version: 1, content: { html: '', css: '' } });
  });

  it('renders exactly the version asked for, and the render cache keys on the version', async () => {
    const first = await render({ templateVersion: 1 });
    const third = await render({ templateVersion: 3 });
    const latest = await render();
    expect(await pixelsOf(first.href)).toEqual({ width: 100, rgb: WHITE });
    expect(await pixelsOf(third.href)).toEqual({ width: 100, rgb: GREEN });
    expect(await pixelsOf(latest.href)).toEqual({ width: 80, rgb: GREEN });
    expect(third.cached).toBeUndefined();
    // Naming the latest version is the same render as naming none.
    expect(await render({ templateVersion: 4 })).toMatchObject({ cached: true });
    expect(await render({ templateVersion: 1 })).toMatchObject({ cached: true });

    const detail = await app.call('GET', `/api/v2/results/${third.requestId}`);
    expect(detail.body).toMatchObject({ status: 'done', templateVersion: 3 });
    const listed = await app.call('GET', `/api/v2/results?template=${templateId}&size=50`);
    const versions = Object.fromEntries(listed.body.content.map((item: { identifier: string; templateVersion: number }) => [item.identifier, item.templateVersion]));
    expect(versions).toMatchObject({ [first.requestId]: 1, [third.requestId]: 3, [latest.requestId]: 4 });
  });

  it('renders without a version use the published one while edits go on', async () => {
    const published = await app.call('POST', `/api/v2/my-templates/${templateId}/publish`, { body: { version: 2 } });
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ version: 4, publishedVersion: 2 });
    expect((await paint('#0000ff')).status).toBe(200);

    const plain = await render();
    expect(await pixelsOf(plain.href)).toEqual({ width: 100, rgb: RED });
    expect((await app.call('GET', `/api/v2/results/${plain.requestId}`)).body).toMatchObject({ templateVersion: 2 });
    const newest = await render({ templateVersion: 5 });
    expect(await pixelsOf(newest.href)).toEqual({ width: 80, rgb: BLUE });

    const template = await app.call('GET', `/api/v2/my-templates/${templateId}`);
    expect(template.body).toMatchObject({ version: 5, publishedVersion: 2 });
    const listed = await app.call('GET', `/api/v2/my-templates/${templateId}/versions`);
    expect(listed.body.content.filter((entry: { published: boolean }) => entry.published).map((entry: { version: number }) => entry.version)).toEqual([2]);

    // The audit names the version that produced the result.
    const history = await app.call('GET', `/api/v2/audit/history?template=${templateId}&size=200`);
    expect(history.status).toBe(200);
    const row = history.body.items.find((item: { requestId: string }) => item.requestId === plain.requestId);
    expect(row.template).toMatchObject({ id: templateId, version: 2 });
    const snapshot = await app.call('GET', `/api/v2/audit/templates/${templateId}?at=${new Date().toISOString()}`);
    expect(snapshot.body).toMatchObject({ version: 5, publishedVersion: 2 });
    expect(snapshot.body.versions.map((entry: { version: number }) => entry.version)).toEqual([1, 2, 3, 4, 5]);
    // The revision the render pinned is the one that made version 2.
    expect(row.template.revision).toBe(snapshot.body.versions[1].revision);
  });

  it('restores an old version as a new one', async () => {
    const restored = await app.call('POST', `/api/v2/my-templates/${templateId}/versions/3/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ version: 6, width: 100, publishedVersion: 2 });
    const sixth = await app.call('GET', `/api/v2/my-templates/${templateId}/versions/6`);
    expect(sixth.body).toMatchObject({ version: 6, restoredFrom: 3, changed: ['settings', 'content'], content: { css: expect.stringContaining('#00ff00') } });
    const content = await app.call('GET', `/api/v2/my-templates/${templateId}/html-editor`);
    expect(content.body.css).toContain('#00ff00');
    expect(await pixelsOf((await render({ templateVersion: 6 })).href)).toEqual({ width: 100, rgb: GREEN });
    // Restoring what the template already is makes no version.
    expect((await app.call('POST', `/api/v2/my-templates/${templateId}/versions/3/restore`)).body).toMatchObject({ version: 6 });
    // Publishing without a body publishes the latest.
    expect((await app.call('POST', `/api/v2/my-templates/${templateId}/publish`)).body).toMatchObject({ publishedVersion: 6 });
  });

  it('answers a version the template does not have in the error shape: 400 in a body, 404 in a path', async () => {
    expectError(await app.call('POST', '/api/v2/render', { body: { template: templateId, templateVersion: 99 } }), 400, /no version 99/);
    expectError(await app.call('POST', `/api/v2/my-templates/${templateId}/publish`, { body: { version: 99 } }), 400, /no version 99/);
    expectError(await app.call('GET', `/api/v2/my-templates/${templateId}/versions/99`), 404);
    expectError(await app.call('POST', `/api/v2/my-templates/${templateId}/versions/99/restore`), 404);
    expectError(await app.call('GET', `/api/v2/my-templates/${templateId}/versions/0`), 400, /version/);
  });

  it('shows another organization none of it', async () => {
    const key = await app.newOrganizationKey();
    expectError(await app.call('GET', `/api/v2/my-templates/${templateId}/versions`, { key }), 404);
    expectError(await app.call('GET', `/api/v2/my-templates/${templateId}/versions/1`, { key }), 404);
    expectError(await app.call('POST', `/api/v2/my-templates/${templateId}/publish`, { key, body: { version: 1 } }), 404);
    expectError(await app.call('POST', `/api/v2/my-templates/${templateId}/versions/1/restore`, { key }), 404);
    expectError(await app.call('GET', `/api/v2/audit/templates/${templateId}?at=${new Date().toISOString()}`, { key }), 404);
    expectError(await app.call('POST', '/api/v2/render', { key, body: { template: templateId, templateVersion: 1 } }), 400, /no template/);
    expect((await app.call('GET', `/api/v2/my-templates/${templateId}/versions`)).status).toBe(200);
  });
});
