import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTRPCClient, httpLink } from '@trpc/client';
import jsqr from 'jsqr';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../../interfaces/trpc/app-router.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** jsqr is a CommonJS bundle whose types declare an ES default export; `.default` satisfies both. */
const decodeQr = jsqr.default;

let app: TestApp;
/** Serves /olive.png, a solid olive image, on loopback (allowed for this app). */
let imageServer: Server;
let imageUrl: string;

const box = { x: 0, y: 0, width: 100, height: 100 };

const createTemplate = async (editor: string, size = { width: 200, height: 100 }, key?: string) => {
  const created = await app.call('POST', '/api/v2/my-templates', { key, body: { name: 'Canvas', ...size, editor } });
  expect(created.status).toBe(200);
  return created.body.identifier as string;
};

const putComponents = (templateId: string, body: unknown, key?: string) =>
  app.call('PUT', `/api/v2/my-templates/${templateId}/components`, { key, body });

beforeAll(async () => {
  // Images in these tests come from a server on loopback, which is private unless allowed.
  app = await startTestApp({ rendering: 'worker', env: { ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
  const olive = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#808000' } }).png().toBuffer();
  imageServer = createServer((req, res) => {
    if (req.url !== '/olive.png') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'image/png' }).end(olive);
  });
  await new Promise<void>((resolve) => imageServer.listen(0, '127.0.0.1', resolve));
  imageUrl = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}/olive.png`;
});
afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => imageServer?.close(resolve));
});

describe('GET/PUT /api/v2/my-templates/{id}/components', () => {
  it('stores the document, reads it back and lists the derived properties on the template', async () => {
    const templateId = await createTemplate('canvas-editor');
    expect((await app.call('GET', `/api/v2/my-templates/${templateId}/components`)).body).toEqual({ components: [] });

    const document = {
      background: '#eeeeee',
      components: [
        { id: 'bg', type: 'RECTANGLE', ...box, fill: '#ff0000' },
        { id: 'title', type: 'TEXT', ...box, text: 'Hello', fontSize: 24, locked: true },
      ],
    };
    const put = await putComponents(templateId, document);
    expect(put.status).toBe(200);
    expect(put.body).toEqual(document);
    expect((await app.call('GET', `/api/v2/my-templates/${templateId}/components`)).body).toEqual(document);

    const template = (await app.call('GET', `/api/v2/my-templates/${templateId}`)).body;
    expect(template.properties).toContainEqual({
      key: 'bg.fill',
      type: 'color',
      defaultValue: '#ff0000',
      componentId: 'bg',
      componentType: 'RECTANGLE',
      property: 'fill',
      locked: false,
    });
    expect(template.properties).toContainEqual(expect.objectContaining({ key: 'title.fontSize', type: 'number', defaultValue: '24', locked: true }));
    expect(template.properties).toHaveLength(5 + 15);

    const listed = (await app.call('GET', '/api/v2/my-templates')).body.find((entry: { identifier: string }) => entry.identifier === templateId);
    expect(listed.properties).toEqual(template.properties);
  });

  it('answers 400 naming the component and property, and changes nothing', async () => {
    const templateId = await createTemplate('canvas-html');
    const good = { components: [{ id: 'title', type: 'TEXT', ...box, text: 'kept' }] };
    await putComponents(templateId, good);

    const bad = await putComponents(templateId, {
      components: [
        { id: 'a', type: 'RECTANGLE', ...box },
        { id: 'b', type: 'CIRCLE', ...box },
        { id: 'title', type: 'TEXT', ...box, fontSize: 'huge' },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ status: 400, msg: 'Invalid components' });
    expect(bad.body.errors).toEqual(["components[2] (id 'title').fontSize: must be a number from 1 to 1000"]);

    const duplicate = await putComponents(templateId, { components: [{ id: 'x', type: 'TEXT', ...box }, { id: 'x', type: 'TEXT', ...box }] });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.errors).toEqual(["components[1] (id 'x').id: is used by an earlier component; ids must be unique"]);

    const dotted = await putComponents(templateId, { components: [{ id: 'a.b', type: 'QR_CODE', ...box, colour: 'red' }] });
    expect(dotted.body.errors).toEqual([
      "components[0] (id 'a.b').id: must not contain a dot (property keys are <componentId>.<property>)",
      "components[0] (id 'a.b').colour: unknown field",
    ]);

    expect((await app.call('GET', `/api/v2/my-templates/${templateId}/components`)).body).toEqual(good);
  });

  it('refuses animation on canvas-editor templates', async () => {
    const templateId = await createTemplate('canvas-editor');
    const response = await putComponents(templateId, {
      components: [{ id: 'r', type: 'RECTANGLE', ...box, animation: { enter: { offset: 0, duration: 500, from: { opacity: 0 } } } }],
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual(["components[0] (id 'r').animation: only canvas-html templates animate"]);
  });

  it('answers 400 for html-editor templates and 404 for unknown or foreign ones', async () => {
    const htmlTemplate = await createTemplate('html-editor');
    const read = await app.call('GET', `/api/v2/my-templates/${htmlTemplate}/components`);
    expect(read.status).toBe(400);
    expect(read.body.msg).toMatch(/html-editor/);
    expect((await putComponents(htmlTemplate, { components: [] })).status).toBe(400);

    expect((await app.call('GET', '/api/v2/my-templates/nope/components')).status).toBe(404);
    const foreign = await createTemplate('canvas-editor', undefined, await app.newOrganizationKey());
    expect((await putComponents(foreign, { components: [] })).status).toBe(404);
  });
});

const MAGIC = {
  png: (bytes: Buffer) => bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  jpeg: (bytes: Buffer) => bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff,
  pdf: (bytes: Buffer) => bytes.subarray(0, 5).toString() === '%PDF-',
};

const render = (body: Record<string, unknown>, key?: string) => app.call('POST', '/api/v2/render', { key, body });

const download = async (href: string) => {
  const url = new URL(href);
  const response = await fetch(`${app.url}${url.pathname}${url.search}`);
  return Buffer.from(await response.arrayBuffer());
};

interface Raster {
  readonly data: Buffer;
  readonly width: number;
  readonly height: number;
  readonly channels: number;
}

const rasterOf = async (image: Buffer): Promise<Raster> => {
  const { data, info } = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
};

const pixel = (raster: Raster, x: number, y: number): number[] => {
  const offset = (y * raster.width + x) * raster.channels;
  return [...raster.data.subarray(offset, offset + 3)];
};

const hex = (color: string) => [1, 3, 5].map((start) => Number.parseInt(color.slice(start, start + 2), 16));

/** Colour within a small tolerance: anti-aliasing and lossy formats move values a little. */
const expectColor = (raster: Raster, x: number, y: number, color: string, tolerance = 8) => {
  const actual = pixel(raster, x, y);
  hex(color).forEach((channel, index) => expect(Math.abs((actual[index] ?? -1) - channel), `pixel ${x},${y} is ${actual} not ${color}`).toBeLessThanOrEqual(tolerance));
};

const countPixels = (raster: Raster, area: { x: number; y: number; width: number; height: number }, matches: (rgb: number[]) => boolean) => {
  let count = 0;
  for (let y = area.y; y < area.y + area.height; y++) for (let x = area.x; x < area.x + area.width; x++) if (matches(pixel(raster, x, y))) count++;
  return count;
};

const renderPng = async (templateId: string, data: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => {
  const response = await render({ template: templateId, data, outputFormat: 'png', ...extra });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const bytes = await download(response.body.href);
  expect(MAGIC.png(bytes)).toBe(true);
  return { raster: await rasterOf(bytes), body: response.body };
};

const everyType = () => ({
  background: '#ffffff',
  components: [
    { id: 'bg', type: 'RECTANGLE', x: 0, y: 0, width: 100, height: 100, fill: '#ff0000' },
    { id: 'dot', type: 'CIRCLE', x: 100, y: 0, width: 100, height: 100, fill: '#0000ff' },
    { id: 'title', type: 'TEXT', x: 200, y: 0, width: 200, height: 100, text: 'Hello', fontSize: 40, color: '#000000', fontFamily: 'DejaVu Sans' },
    { id: 'qr', type: 'QR_CODE', x: 0, y: 100, width: 150, height: 150, value: 'https://example.com/e2e?canvas=1' },
    { id: 'sales', type: 'CHART', x: 150, y: 100, width: 150, height: 100, labels: ['a', 'b'], datasets: [{ data: [5, 5], color: '#00ff00' }], showLegend: false },
    { id: 'square', type: 'SVG_PATH', x: 300, y: 100, width: 100, height: 100, d: 'M0 0H100V100H0Z', fill: '#ff00ff' },
    { id: 'group', type: 'SVG_GROUP', x: 150, y: 200, width: 50, height: 50, viewBox: '0 0 10 10', paths: [{ d: 'M0 0h10v10H0z', fill: '#00ffff' }] },
    { id: 'stars', type: 'RATING', x: 200, y: 200, width: 100, height: 20, value: 1, max: 5, color: '#ffaa00', emptyColor: '#d9d9d9' },
    { id: 'raw', type: 'HTML', x: 300, y: 200, width: 100, height: 50, html: '<div style="width:100%;height:100%;background:#123456"></div>' },
    { id: 'photo', type: 'IMAGE', x: 0, y: 250, width: 100, height: 50, src: imageUrl },
    { id: 'clip', type: 'VIDEO', x: 100, y: 250, width: 50, height: 50, src: `${imageUrl}.webm` },
  ],
});

describe('rendering canvas templates', () => {
  let templateId: string;
  beforeAll(async () => {
    templateId = await createTemplate('canvas-editor', { width: 400, height: 300 });
    const put = await putComponents(templateId, everyType());
    expect(put.status, JSON.stringify(put.body)).toBe(200);
  });

  it('draws every component type where the document puts it', async () => {
    const { raster } = await renderPng(templateId, {}, { cache: false });
    expect([raster.width, raster.height]).toEqual([400, 300]);
    expectColor(raster, 50, 50, '#ff0000');
    expectColor(raster, 150, 50, '#0000ff');
    // The circle's box corner is outside the circle.
    expectColor(raster, 102, 2, '#ffffff');
    expect(countPixels(raster, { x: 200, y: 0, width: 200, height: 100 }, ([r = 0, g = 0, b = 0]) => r + g + b < 150)).toBeGreaterThan(200);
    expect(countPixels(raster, { x: 150, y: 100, width: 150, height: 100 }, ([r = 0, g = 0, b = 0]) => g > 200 && r < 60 && b < 60)).toBeGreaterThan(1000);
    expectColor(raster, 350, 150, '#ff00ff');
    expectColor(raster, 175, 225, '#00ffff');
    expectColor(raster, 210, 211, '#ffaa00');
    expectColor(raster, 290, 211, '#d9d9d9');
    expectColor(raster, 350, 225, '#123456');
    expectColor(raster, 50, 275, '#808000');
  });

  it('draws a QR code that decodes to its value', async () => {
    const { raster } = await renderPng(templateId, { 'qr.value': 'https://example.com/override?n=42' });
    const area = { left: 0, top: 100, width: 150, height: 150 };
    const region = await sharp(raster.data, { raw: { width: raster.width, height: raster.height, channels: 4 } }).extract(area).raw().toBuffer();
    expect(decodeQr(new Uint8ClampedArray(region), area.width, area.height)?.data).toBe('https://example.com/override?n=42');
  });

  it('applies render data to the properties it names', async () => {
    const { raster } = await renderPng(templateId, { 'bg.fill': '#00ff00', 'square.fill': 'rgb(0, 0, 255)', 'stars.value': '5' });
    expectColor(raster, 50, 50, '#00ff00');
    expectColor(raster, 350, 150, '#0000ff');
    expectColor(raster, 290, 211, '#ffaa00');
  });

  it('takes the text form of values from GET /img query pairs', async () => {
    const query = new URLSearchParams({ 'bg.fill': '#0000ff', 'stars.value': '5', apiKey: app.apiKey });
    const response = await fetch(`${app.url}/img/${templateId}.jpg?${query}`);
    expect(response.status).toBe(200);
    const raster = await rasterOf(Buffer.from(await response.arrayBuffer()));
    expectColor(raster, 50, 50, '#0000ff', 24);
    expectColor(raster, 290, 211, '#ffaa00', 24);
  });

  it('renders the same document and data to the same pixels', async () => {
    const first = await renderPng(templateId, {}, { cache: false });
    const second = await renderPng(templateId, {}, { cache: false });
    expect(second.raster.data.equals(first.raster.data)).toBe(true);
  });

  it('renders PDFs and JPEGs', async () => {
    const pdf = await render({ template: templateId, outputFormat: 'pdf', cache: false });
    expect(pdf.status).toBe(200);
    expect(MAGIC.pdf(await download(pdf.body.href))).toBe(true);
    const jpeg = await render({ template: templateId, outputFormat: 'jpeg', cache: false });
    const bytes = await download(jpeg.body.href);
    expect(MAGIC.jpeg(bytes)).toBe(true);
    expectColor(await rasterOf(bytes), 50, 50, '#ff0000', 24);
  });

  it('answers 400 for unknown data keys, bad values and locked properties, before charging', async () => {
    const before = (await app.call('GET', '/api/v1/usage')).body.credits.used;
    const unknown = await render({ template: templateId, data: { 'bg.colour': 'red', 'nope.text': 'x' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.msg).toBe('Unknown data keys: bg.colour, nope.text');
    expect(unknown.body.errors).toEqual([
      expect.stringMatching(/^data\.bg\.colour: no such property \(properties are bg\.fill, bg\.stroke/),
      expect.stringMatching(/^data\.nope\.text: no such property/),
    ]);
    const badValue = await render({ template: templateId, data: { 'title.fontSize': 'huge' } });
    expect(badValue.status).toBe(400);
    expect(badValue.body.errors).toEqual(['data.title.fontSize: must be a number from 1 to 1000']);

    const lockedTemplate = await createTemplate('canvas-editor');
    await putComponents(lockedTemplate, { components: [{ id: 'logo', type: 'RECTANGLE', ...box, locked: true }] });
    const locked = await render({ template: lockedTemplate, data: { 'logo.fill': '#000000' } });
    expect(locked.status).toBe(400);
    expect(locked.body.errors).toEqual(["data.logo.fill: component 'logo' is locked"]);
    expect((await app.call('GET', '/api/v1/usage')).body.credits.used).toBe(before);
  });

  it('renders anew after the components change: the new revision misses the cache', async () => {
    const ownTemplate = await createTemplate('canvas-editor');
    await putComponents(ownTemplate, { components: [{ id: 'bg', type: 'RECTANGLE', ...box, fill: '#ff0000' }] });
    const first = await renderPng(ownTemplate);
    expect((await renderPng(ownTemplate)).body.cached).toBe(true);

    await putComponents(ownTemplate, { components: [{ id: 'bg', type: 'RECTANGLE', ...box, fill: '#0000ff' }] });
    const after = await renderPng(ownTemplate);
    expect(after.body.cached).toBeUndefined();
    expectColor(first.raster, 50, 50, '#ff0000');
    expectColor(after.raster, 50, 50, '#0000ff');
  });

  it('shows a canvas-html template at t = 0: a component that has not entered yet is hidden', async () => {
    const animated = await createTemplate('canvas-html');
    await putComponents(animated, {
      components: [
        { id: 'early', type: 'RECTANGLE', ...box, fill: '#ff0000', animation: { enter: { offset: 0, duration: 0, from: {} } } },
        { id: 'late', type: 'RECTANGLE', ...box, x: 100, fill: '#0000ff', animation: { enter: { offset: 500, duration: 500, from: { opacity: 0 } } } },
      ],
    });
    const { raster } = await renderPng(animated, {}, { cache: false });
    expectColor(raster, 50, 50, '#ff0000');
    expectColor(raster, 150, 50, '#ffffff');
  });

  it('renders an empty canvas before any components are written', async () => {
    const empty = await createTemplate('canvas-editor');
    const { raster } = await renderPng(empty);
    expectColor(raster, 10, 10, '#ffffff');
  });
});

describe('components over tRPC', () => {
  it('writes and reads a document with the typed client', async () => {
    const client = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${app.url}/trpc`, headers: () => ({ 'x-api-key': app.apiKey }) })] });
    const templateId = await createTemplate('canvas-editor');
    const document = { components: [{ id: 'label', type: 'TEXT' as const, ...box, text: 'typed' }] };
    expect(await client.templates.putComponents.mutate({ templateId, document })).toEqual(document);
    expect(await client.templates.getComponents.query({ templateId })).toEqual(document);
    await expect(
      client.templates.putComponents.mutate({ templateId, document: { components: [{ id: 'label', type: 'TEXT', ...box, fontSize: 0 }] } }),
    ).rejects.toMatchObject({ data: { body: { status: 400, errors: [expect.stringContaining('fontSize')] } } });
  });
});
