import { execFile } from 'node:child_process';
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestBucket, type TestBucket } from '../support/s3.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { decodeVideoFrames } from '../support/video-files.js';
import { waitFor } from '../support/wait-for.js';

const run = promisify(execFile);

/*
 * Custom fonts and image uploads on the whole stack: PostgreSQL, Temporal, Chromium, ffmpeg, and
 * uploads stored through the S3 adapter in MinIO. Hrefs name a public origin nothing answers, so an
 * image that shows came from the worker's storage, not over the network.
 */

const PUBLIC_BASE_URL = 'http://uploads.e2e.test';
const FONT_FILE = '/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf';
const UPLOADS_QUOTA = 4 * 1024 * 1024;

let app: TestApp;
let bucket: TestBucket;
let otherKey: string;
let scratch: string;

const form = (fields: Record<string, string | Blob>) => {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  return body;
};

const post = async (pathname: string, body: FormData, key = app.apiKey) => {
  const response = await fetch(`${app.url}${pathname}`, { method: 'POST', headers: { 'x-api-key': key }, body });
  return { status: response.status, body: await response.json() };
};

const fileBlob = (bytes: Buffer, type = 'application/octet-stream') => new Blob([new Uint8Array(bytes)], { type });

const uploadsUsed = async (key = app.apiKey): Promise<number> => (await app.call('GET', '/api/v1/usage', { key })).body.uploads.used;

const objectKeys = async () => ((await bucket.client.send(new ListObjectsV2Command({ Bucket: bucket.options.bucket }))).Contents ?? []).map((object) => object.Key);

const htmlTemplate = async (key: string, html: string, css: string, size = { width: 240, height: 80 }) => {
  const created = await app.call('POST', '/api/v2/my-templates', { key, body: { name: 'assets', ...size, editor: 'html-editor' } });
  expect(created.status).toBe(200);
  const put = await app.call('PUT', `/api/v2/my-templates/${created.body.identifier}/html-editor`, { key, body: { html, css } });
  expect(put.status).toBe(200);
  return created.body.identifier as string;
};

const canvasTemplate = async (key: string, components: unknown[], editor = 'canvas-editor', size = { width: 240, height: 80 }) => {
  const created = await app.call('POST', '/api/v2/my-templates', { key, body: { name: 'assets canvas', ...size, editor } });
  expect(created.status).toBe(200);
  const put = await app.call('PUT', `/api/v2/my-templates/${created.body.identifier}/components`, { key, body: { background: '#ffffff', components } });
  expect(put.status).toBe(200);
  return created.body.identifier as string;
};

/** The rendered file itself (output=image), uncached so every call draws. */
const renderFile = async (key: string, template: string, outputFormat = 'png'): Promise<Buffer> => {
  const response = await fetch(`${app.url}/api/v2/render?output=image`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ template, outputFormat, cache: false }),
  });
  expect(response.status, await response.clone().text().then((text) => text.slice(0, 300))).toBe(200);
  return Buffer.from(await response.arrayBuffer());
};

const rawPixels = async (image: Buffer) => (await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true })).data;

/** Share of the pixels whose colour differs between two images of one size. */
const differingShare = async (a: Buffer, b: Buffer): Promise<number> => {
  const [left, right] = [await rawPixels(a), await rawPixels(b)];
  let differing = 0;
  for (let index = 0; index < left.length; index += 3) {
    if (Math.abs(left[index]! - right[index]!) + Math.abs(left[index + 1]! - right[index + 1]!) + Math.abs(left[index + 2]! - right[index + 2]!) > 30) differing++;
  }
  return differing / (left.length / 3);
};

const pixel = async (image: Buffer, x: number, y: number) => {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * 3;
  return [data[at], data[at + 1], data[at + 2]];
};

const pdfFonts = async (pdf: Buffer): Promise<string> => {
  const file = path.join(scratch, `fonts-${Date.now()}-${Math.random()}.pdf`);
  await writeFile(file, pdf);
  return (await run('pdffonts', [file])).stdout;
};

const MAGENTA = [255, 0, 255];
let pngUpload: { identifier: string; href: string; size: number };

beforeAll(async () => {
  bucket = await createTestBucket();
  scratch = await mkdtemp(path.join(os.tmpdir(), 'uploads-e2e-'));
  app = await startTestApp({
    rendering: 'worker',
    env: { ...bucket.env, PUBLIC_BASE_URL, DEFAULT_UPLOADS_BYTES: String(UPLOADS_QUOTA) },
  });
  otherKey = await app.newOrganizationKey();
});
afterAll(async () => {
  await app?.close();
  await bucket?.remove();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('custom fonts', () => {
  let fontId: string;
  const TEXT_HTML = '<p>Hello Brand 123</p>';
  const cssWith = (family: string) => `p{margin:8px;font:32px "${family}", "DejaVu Serif";color:#000}`;

  it('uploads a TTF as a CUSTOM font named by the form, counted in uploads.used, stored in the bucket', async () => {
    // A render before the upload: the organization had no font then, and the next test's renders must find the one uploaded now.
    await renderFile(app.apiKey, await htmlTemplate(app.apiKey, TEXT_HTML, cssWith('Brand Mono')));
    const before = await uploadsUsed();
    const bytes = await readFile(FONT_FILE);
    const response = await post('/api/v1/fonts', form({ file: fileBlob(bytes), family: 'Brand Mono' }));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      identifier: expect.any(String),
      family: 'Brand Mono',
      originalName: 'DejaVu Sans Mono',
      source: 'CUSTOM',
      variants: ['700'],
      defaultVariant: '700',
      category: 'monospace',
      size: bytes.length,
      createdAt: expect.any(String),
    });
    expect(response.body.subsets).toEqual(expect.arrayContaining(['latin', 'cyrillic']));
    fontId = response.body.identifier;
    expect(await uploadsUsed()).toBe(before + bytes.length);
    const stored = (await objectKeys()).find((key) => key?.includes(fontId));
    expect(stored).toMatch(/\/fonts\/.+\.ttf$/);

    const listed = await app.call('GET', '/api/v1/fonts');
    expect(listed.body.filter((font: { source: string; identifier?: string }) => font.identifier !== undefined)).toEqual([response.body]);
    expect(listed.body.some((font: { family: string }) => font.family === 'DejaVu Sans')).toBe(true);
    // Another organization neither lists it nor can delete it.
    const others = await app.call('GET', '/api/v1/fonts', { key: otherKey });
    expect(others.body.some((font: { family: string }) => font.family === 'Brand Mono')).toBe(false);
    expect((await app.call('DELETE', `/api/v1/fonts/${fontId}`, { key: otherKey })).status).toBe(404);
  });

  it('draws html templates that name the family in it, in images and PDFs; another organization falls back', async () => {
    const branded = await htmlTemplate(app.apiKey, TEXT_HTML, cssWith('Brand Mono'));
    const fallback = await htmlTemplate(app.apiKey, TEXT_HTML, cssWith('No Such Family'));
    const othersBranded = await htmlTemplate(otherKey, TEXT_HTML, cssWith('Brand Mono'));

    const [withFont, withoutFont, others] = await Promise.all([renderFile(app.apiKey, branded), renderFile(app.apiKey, fallback), renderFile(otherKey, othersBranded)]);
    expect(await differingShare(withFont, withoutFont)).toBeGreaterThan(0.01);
    expect(await differingShare(others, withoutFont)).toBeLessThan(0.001);

    expect(await pdfFonts(await renderFile(app.apiKey, branded, 'pdf'))).toContain('DejaVuSansMono-Bold');
    expect(await pdfFonts(await renderFile(otherKey, othersBranded, 'pdf'))).not.toContain('DejaVuSansMono');
  });

  it('draws a canvas TEXT component whose fontFamily names it, in an image and in a video', async () => {
    const text = (fontFamily: string) => [{ id: 'title', type: 'TEXT', x: 0, y: 0, width: 240, height: 80, text: 'Hello 123', fontSize: 32, color: '#000000', fontFamily }];
    const branded = await canvasTemplate(app.apiKey, text('Brand Mono'), 'canvas-html');
    const fallback = await canvasTemplate(app.apiKey, text('No Such Family'), 'canvas-html');
    const [withFont, withoutFont] = await Promise.all([renderFile(app.apiKey, branded), renderFile(app.apiKey, fallback)]);
    expect(await differingShare(withFont, withoutFont)).toBeGreaterThan(0.01);

    const accepted = await app.call('POST', '/api/v2/render', { body: { template: branded, outputFormat: 'mp4', duration: 1000, fps: 24, cache: false } });
    expect(accepted.status).toBe(202);
    const done = await waitFor('the video', async () => {
      const result = await app.call('GET', `/api/v2/results/${accepted.body.requestId}`);
      return result.body.status === 'pending' ? undefined : result.body;
    }, 120_000);
    expect(done.status).toBe('done');
    const video = path.join(scratch, 'font.mp4');
    const href = new URL(done.href);
    await writeFile(video, Buffer.from(await (await fetch(`${app.url}${href.pathname}${href.search}`)).arrayBuffer()));
    const [frame] = await decodeVideoFrames(video, 240, 80);
    const still = await sharp(withFont).removeAlpha().raw().toBuffer();
    const frameImage = await sharp(frame!, { raw: { width: 240, height: 80, channels: 3 } }).png().toBuffer();
    const stillImage = await sharp(still, { raw: { width: 240, height: 80, channels: 3 } }).png().toBuffer();
    const fallbackImage = await sharp(await rawPixels(withoutFont), { raw: { width: 240, height: 80, channels: 3 } }).png().toBuffer();
    // The frame is the branded still up to compression, and far from the fallback.
    expect(await differingShare(frameImage, stillImage)).toBeLessThan(await differingShare(frameImage, fallbackImage));
  });

  it('refuses a file that is not a font, or a truncated one, storing nothing', async () => {
    const before = await uploadsUsed();
    const keysBefore = await objectKeys();
    const bytes = await readFile(FONT_FILE);
    for (const file of [Buffer.from('<html>not a font</html>'), bytes.subarray(0, bytes.length / 2), Buffer.concat([bytes.subarray(0, 12), Buffer.alloc(4096, 0xff)])]) {
      const response = await post('/api/v1/fonts', form({ file: fileBlob(file) }));
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ status: 400, msg: expect.stringContaining('not a usable font'), errors: [expect.any(String)] });
    }
    const hostileFamily = await post('/api/v1/fonts', form({ file: fileBlob(bytes), family: 'x"}</style><script>' }));
    expect(hostileFamily.status).toBe(400);
    expect(hostileFamily.body.errors[0]).toMatch(/^family:/);
    const notMultipart = await app.call('POST', '/api/v1/fonts', { body: { file: 'AAAA' } });
    expect(notMultipart.status).toBe(400);
    // Refused as it streams in, past 10 MB, whatever the rest would have been.
    const tooLarge = await post('/api/v1/fonts', form({ file: fileBlob(Buffer.concat([bytes, Buffer.alloc(10 * 1024 * 1024)])) }));
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.errors).toEqual(['file: at most 10485760 bytes']);
    const extraField = await post('/api/v1/fonts', form({ file: fileBlob(bytes), colour: 'red' }));
    expect(extraField.status).toBe(400);
    expect(await uploadsUsed()).toBe(before);
    expect(await objectKeys()).toEqual(keysBefore);
  });

  it('deletes the font: its bytes come back and renders fall back', async () => {
    const before = await uploadsUsed();
    const bytes = await readFile(FONT_FILE);
    expect((await app.call('DELETE', `/api/v1/fonts/${fontId}`)).status).toBe(200);
    expect(await uploadsUsed()).toBe(before - bytes.length);
    expect((await objectKeys()).some((key) => key?.includes(fontId))).toBe(false);
    expect((await app.call('DELETE', `/api/v1/fonts/${fontId}`)).status).toBe(404);
    const branded = await htmlTemplate(app.apiKey, TEXT_HTML, cssWith('Brand Mono'));
    const fallback = await htmlTemplate(app.apiKey, TEXT_HTML, cssWith('No Such Family'));
    expect(await differingShare(await renderFile(app.apiKey, branded), await renderFile(app.apiKey, fallback))).toBeLessThan(0.001);
  });
});

describe('image uploads', () => {
  it('uploads a PNG: type, size and pixels sniffed from the bytes, counted in uploads.used', async () => {
    const before = await uploadsUsed();
    const png = await sharp({ create: { width: 64, height: 32, channels: 3, background: { r: 255, g: 0, b: 255 } } }).png().toBuffer();
    // The name and type the client claims are ignored.
    const response = await post('/api/v2/uploads', form({ file: new File([new Uint8Array(png)], 'logo.gif', { type: 'text/plain' }) }));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      identifier: expect.any(String),
      href: `${PUBLIC_BASE_URL}/api/v2/uploads/${response.body.identifier}/file`,
      contentType: 'image/png',
      size: png.length,
      width: 64,
      height: 32,
      createdAt: expect.any(String),
    });
    pngUpload = response.body;
    expect(await uploadsUsed()).toBe(before + png.length);
    const stored = await bucket.client.send(new GetObjectCommand({ Bucket: bucket.options.bucket, Key: (await objectKeys()).find((key) => key?.includes(pngUpload.identifier)) }));
    expect(Buffer.from(await stored.Body!.transformToByteArray()).equals(png)).toBe(true);

    const listed = await app.call('GET', '/api/v2/uploads?size=10');
    expect(listed.body).toMatchObject({ content: [pngUpload], totalElements: 1, number: 0, size: 10 });
    expect((await app.call('GET', '/api/v2/uploads', { key: otherKey })).body.content).toEqual([]);
    const file = await fetch(`${app.url}/api/v2/uploads/${pngUpload.identifier}/file`, { headers: { 'x-api-key': app.apiKey } });
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await file.arrayBuffer()).equals(png)).toBe(true);
    expect((await fetch(`${app.url}/api/v2/uploads/${pngUpload.identifier}/file`, { headers: { 'x-api-key': otherKey } })).status).toBe(404);
  });

  it('shows in html templates (img and CSS url) and IMAGE components in images and PDFs, never in another organization\'s render', async () => {
    const html = `<img src="${pngUpload.href}" style="display:block;width:120px;height:80px"><div class="bg"></div>`;
    const css = `.bg{position:absolute;left:120px;top:0;width:120px;height:80px;background:url("${pngUpload.href}") center/cover}`;
    const mine = await htmlTemplate(app.apiKey, html, css);
    const image = await renderFile(app.apiKey, mine);
    expect(await pixel(image, 60, 40)).toEqual(MAGENTA);
    expect(await pixel(image, 180, 40)).toEqual(MAGENTA);

    const component = [{ id: 'logo', type: 'IMAGE', x: 0, y: 0, width: 240, height: 80, src: pngUpload.href, objectFit: 'fill' }];
    const canvas = await canvasTemplate(app.apiKey, component);
    expect(await pixel(await renderFile(app.apiKey, canvas), 120, 40)).toEqual(MAGENTA);
    const pdf = path.join(scratch, 'upload.pdf');
    await writeFile(pdf, await renderFile(app.apiKey, canvas, 'pdf'));
    await run('pdftoppm', ['-png', '-r', '72', '-singlefile', pdf, path.join(scratch, 'upload-page')]);
    const page = await readFile(path.join(scratch, 'upload-page.png'));
    const { width, height } = await sharp(page).metadata();
    expect(await pixel(page, Math.floor(width! / 2), Math.floor(height! / 2))).toEqual(MAGENTA);

    // The same href in another organization's templates finds nothing: white where the image would be.
    const theirs = await htmlTemplate(otherKey, html, css);
    const theirImage = await renderFile(otherKey, theirs);
    expect(await pixel(theirImage, 60, 40)).not.toEqual(MAGENTA);
    expect(await pixel(theirImage, 180, 40)).not.toEqual(MAGENTA);
    const theirCanvas = await canvasTemplate(otherKey, component);
    expect(await pixel(await renderFile(otherKey, theirCanvas), 120, 40)).not.toEqual(MAGENTA);
  });

  it('stores an SVG without its scripts, handlers and external references, and draws it', async () => {
    const svg = `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="40" height="20" onload="fetch('http://evil.example/x')">` +
      `<script>document.title='owned'</script><image href="http://evil.example/track.png" width="1" height="1"/>` +
      `<rect width="40" height="20" fill="#00ff00" style="stroke:url(http://evil.example/s)"/></svg>`;
    const response = await post('/api/v2/uploads', form({ file: fileBlob(Buffer.from(svg)) }));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ contentType: 'image/svg+xml', width: 40, height: 20 });
    const stored = await (await fetch(`${app.url}/api/v2/uploads/${response.body.identifier}/file`, { headers: { 'x-api-key': app.apiKey } })).text();
    expect(stored).toContain('<rect');
    expect(stored).not.toMatch(/script|onload|evil\.example/i);
    expect(response.body.size).toBe(Buffer.byteLength(stored));
    const template = await htmlTemplate(app.apiKey, `<img src="${response.body.href}" style="display:block;width:240px;height:80px">`, '');
    expect(await pixel(await renderFile(app.apiKey, template), 120, 40)).toEqual([0, 255, 0]);
  });

  it('refuses what is not an image it accepts, storing nothing', async () => {
    const before = await uploadsUsed();
    const keysBefore = await objectKeys();
    const png = await sharp({ create: { width: 64, height: 32, channels: 3, background: '#ff00ff' } }).png().toBuffer();
    const cases = [
      fileBlob(Buffer.from('%PDF-1.7 not an image'), 'image/png'),
      fileBlob(png.subarray(0, 60), 'image/png'),
      fileBlob(Buffer.from('<html><body><script>alert(1)</script></body></html>'), 'image/svg+xml'),
    ];
    for (const file of cases) {
      const response = await post('/api/v2/uploads', form({ file }));
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ status: 400, msg: expect.stringContaining('not an image'), errors: [expect.any(String)] });
    }
    const noFile = await post('/api/v2/uploads', form({ other: 'x' }));
    expect(noFile.status).toBe(400);
    expect(await uploadsUsed()).toBe(before);
    expect(await objectKeys()).toEqual(keysBefore);
  });

  it('refuses an upload past uploads.total with a 402 naming the quota, storing nothing', async () => {
    const before = await uploadsUsed();
    const keysBefore = await objectKeys();
    // Noise does not compress: a PNG bigger than what is left of the quota.
    const side = 1300;
    const noise = await sharp(Buffer.from(Array.from({ length: side * side * 3 }, () => Math.floor(Math.random() * 256))), { raw: { width: side, height: side, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    expect(noise.length).toBeGreaterThan(UPLOADS_QUOTA - before);
    const response = await post('/api/v2/uploads', form({ file: fileBlob(noise) }));
    expect(response.status).toBe(402);
    expect(response.body.errors[0]).toContain('uploads.total');
    expect(await uploadsUsed()).toBe(before);
    expect(await objectKeys()).toEqual(keysBefore);
  });

  it('deletes the upload: its bytes come back, its file goes, and new renders no longer show it', async () => {
    const before = await uploadsUsed();
    expect((await app.call('DELETE', `/api/v2/uploads/${pngUpload.identifier}`, { key: otherKey })).status).toBe(404);
    expect((await app.call('DELETE', `/api/v2/uploads/${pngUpload.identifier}`)).status).toBe(200);
    expect(await uploadsUsed()).toBe(before - pngUpload.size);
    expect((await objectKeys()).some((key) => key?.includes(pngUpload.identifier))).toBe(false);
    const template = await htmlTemplate(app.apiKey, `<img src="${pngUpload.href}" style="display:block;width:240px;height:80px">`, '');
    expect(await pixel(await renderFile(app.apiKey, template), 120, 40)).not.toEqual(MAGENTA);
  });

  it('does not answer from the render cache across an upload or a deletion', async () => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 0, g: 0, b: 255 } } }).png().toBuffer();
    const uploaded = (await post('/api/v2/uploads', form({ file: fileBlob(png) }))).body;
    const template = await htmlTemplate(app.apiKey, `<img src="${uploaded.href}" style="display:block;width:240px;height:80px">`, '');
    const cachedRender = async () => {
      const response = await app.call('POST', '/api/v2/render', { body: { template, outputFormat: 'png' } });
      expect(response.status).toBe(200);
      const href = new URL(response.body.href);
      return { cached: response.body.cached === true, image: Buffer.from(await (await fetch(`${app.url}${href.pathname}${href.search}`)).arrayBuffer()) };
    };
    expect(await pixel((await cachedRender()).image, 120, 40)).toEqual([0, 0, 255]);
    expect((await cachedRender()).cached).toBe(true);
    expect((await app.call('DELETE', `/api/v2/uploads/${uploaded.identifier}`)).status).toBe(200);
    const afterDeletion = await cachedRender();
    expect(afterDeletion.cached).toBe(false);
    expect(await pixel(afterDeletion.image, 120, 40)).not.toEqual([0, 0, 255]);
  });

  it('shows every upload and deletion in the audit history of uploads, to its own organization only', async () => {
    const history = await app.call('GET', '/api/v2/audit/uploads');
    expect(history.status).toBe(200);
    const kinds = history.body.map((row: { kind: string; deletedAt: string | null }) => `${row.kind}:${row.deletedAt === null ? 'kept' : 'deleted'}`);
    expect(kinds).toEqual(['font:deleted', 'image:deleted', 'image:kept', 'image:deleted']);
    expect(history.body[0]).toMatchObject({ font: { family: 'Brand Mono', weight: 700 }, uploadedBy: expect.any(String), deletedBy: expect.any(String) });
    expect(history.body[1]).toMatchObject({ identifier: pngUpload.identifier, bytes: pngUpload.size, image: { contentType: 'image/png', width: 64, height: 32 } });
    expect((await app.call('GET', '/api/v2/audit/uploads', { key: otherKey })).body).toEqual([]);
  });

  it('leaves a log that audit verify finds consistent with the read models', async () => {
    const differences: unknown[] = [];
    const verified = await app.runtime.services.audit.verify({ onDifference: (difference) => differences.push(difference) });
    expect(differences).toEqual([]);
    expect(verified).toMatchObject({ ok: true, chainBreaks: 0 });
    expect(verified.eventsChecked).toBeGreaterThan(0);
  });
});
