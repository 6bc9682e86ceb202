import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { BinaryBitmap, Code128Reader, DecodeHintType, EAN13Reader, HybridBinarizer, RGBLuminanceSource, type Result } from '@zxing/library';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gs1CheckDigit } from '../../domain/templates/components/barcode-symbols.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { decodeVideoFrames, pixelAt } from '../support/video-files.js';
import { sleep } from '../support/wait-for.js';

/*
 * Hidden components and barcodes, rendered by the whole service: the API, the workflow, the
 * production markup and Chromium. Barcodes are read back from the rendered pixels by ZXing.
 */

const run = promisify(execFile);

let app: TestApp;
let workDir: string;
/** Serves /olive.png on loopback (allowed for this app); every other path is a 404. */
let imageServer: Server;
let imageUrl: string;
let deadImageUrl: string;

beforeAll(async () => {
  app = await startTestApp({ rendering: 'worker', env: { ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
  workDir = await mkdtemp(path.join(os.tmpdir(), 'barcodes-e2e-'));
  const olive = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#808000' } }).png().toBuffer();
  imageServer = createServer((req, res) => {
    if (req.url !== '/olive.png') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'image/png' }).end(olive);
  });
  await new Promise<void>((resolve) => imageServer.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}`;
  imageUrl = `${base}/olive.png`;
  deadImageUrl = `${base}/gone.png`;
});
afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => imageServer?.close(resolve));
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

const createTemplate = async (size: { width: number; height: number }, extra: Record<string, unknown> = {}) => {
  const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'Barcodes', ...size, editor: 'canvas-editor', ...extra } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.identifier as string;
};

const putComponents = (templateId: string, body: unknown) => app.call('PUT', `/api/v2/my-templates/${templateId}/components`, { body });

const templateWith = async (document: unknown, size = { width: 300, height: 200 }, extra: Record<string, unknown> = {}) => {
  const templateId = await createTemplate(size, extra);
  const put = await putComponents(templateId, document);
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  return templateId;
};

const render = (body: Record<string, unknown>) => app.call('POST', '/api/v2/render', { body });

/** The rendered PNG's pixels, RGBA. */
const renderPixels = async (templateId: string, data: Record<string, unknown> = {}) => {
  const response = await render({ template: templateId, data, outputFormat: 'png', cache: false });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const png = await app.download(response.body.href);
  return { png, ...(await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true })) };
};

const creditsUsed = async () => (await app.call('GET', '/api/v1/usage')).body.credits.used as number;

let pdfCount = 0;
const pdfText = async (templateId: string, data: Record<string, unknown>) => {
  const response = await render({ template: templateId, data, outputFormat: 'pdf', cache: false });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const file = path.join(workDir, `document-${++pdfCount}.pdf`);
  await writeFile(file, await app.download(response.body.href));
  return (await run('pdftotext', [file, '-'])).stdout;
};

describe('hidden components', () => {
  const base = [
    { id: 'bg', type: 'RECTANGLE', x: 0, y: 0, width: 300, height: 200, fill: '#3366cc' },
    { id: 'title', type: 'TEXT', x: 10, y: 10, width: 280, height: 40, text: 'Kept title', fontSize: 24, color: '#ffffff' },
    { id: 'photo', type: 'IMAGE', x: 200, y: 120, width: 60, height: 60, src: '' },
  ];
  const logo = { id: 'logo', type: 'RECTANGLE', x: 50, y: 60, width: 120, height: 100, fill: '#ff0000', radius: 12 };
  const code = { id: 'code', type: 'BARCODE', x: 20, y: 120, width: 160, height: 70, format: 'ean13', value: '5901234123457' };

  it('leaves the pixels of the template without them, hidden by render data or by the document', async () => {
    const without = await templateWith({ components: base });
    const withThem = await templateWith({ components: [base[0], logo, base[1], code, base[2]] });
    const storedHidden = await templateWith({ components: [base[0], { ...logo, hidden: true }, base[1], { ...code, hidden: true }, base[2]] });

    const expected = await renderPixels(without);
    const shown = await renderPixels(withThem);
    expect(shown.data.equals(expected.data)).toBe(false);
    expect((await renderPixels(withThem, { 'logo.hidden': true, 'code.hidden': 'true' })).data.equals(expected.data)).toBe(true);
    expect((await renderPixels(storedHidden)).data.equals(expected.data)).toBe(true);
    // And data can show what the document hides.
    expect((await renderPixels(storedHidden, { 'logo.hidden': false, 'code.hidden': false })).data.equals(shown.data)).toBe(true);
  });

  it('draws nothing for an image without a source, or one that fails to load when hideOnError is set', async () => {
    const without = await renderPixels(await templateWith({ components: base }));
    const broken = await templateWith({
      components: [...base, { id: 'avatar', type: 'IMAGE', x: 40, y: 60, width: 100, height: 100, src: deadImageUrl, hideOnError: true }],
    });
    expect((await renderPixels(broken)).data.equals(without.data)).toBe(true);
    // Without it, Chromium draws its broken-image icon and frame.
    expect((await renderPixels(broken, { 'avatar.hideOnError': false })).data.equals(without.data)).toBe(false);
    // The same component with an image that loads draws it.
    const loaded = await renderPixels(broken, { 'avatar.src': imageUrl });
    const offset = (110 * loaded.info.width + 90) * loaded.info.channels;
    expect([...loaded.data.subarray(offset, offset + 3)]).toEqual([128, 128, 0]);
  });

  it('leaves no text of a hidden TEXT component in a PDF', async () => {
    const templateId = await templateWith({ components: [...base, { id: 'secret', type: 'TEXT', x: 10, y: 60, width: 280, height: 40, text: 'Classified Zebra', fontSize: 20 }] });
    const shown = await pdfText(templateId, {});
    expect(shown).toContain('Kept title');
    expect(shown).toContain('Classified Zebra');
    const hidden = await pdfText(templateId, { 'secret.hidden': true });
    expect(hidden).toContain('Kept title');
    expect(hidden).not.toContain('Classified');
  });

  it('renders videos without the hidden components, barcodes and all', async () => {
    const templateId = await templateWith(
      {
        background: '#000000',
        components: [
          { id: 'box', type: 'RECTANGLE', x: 0, y: 0, width: 80, height: 80, fill: '#ff0000', animation: { enter: { offset: 0, duration: 500, from: { opacity: 0 } } } },
          { id: 'cover', type: 'RECTANGLE', x: 0, y: 0, width: 80, height: 80, fill: '#00ff00' },
          { ...code, x: 100, y: 10, width: 200, height: 100 },
        ],
      },
      { width: 320, height: 180 },
      { editor: 'canvas-html', outputFormat: 'mp4', recordDuration: 1000, fps: 25 },
    );
    const accepted = await render({ template: templateId, data: { 'cover.hidden': true }, cache: false });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    const deadline = Date.now() + 120_000;
    let result: Record<string, any>;
    for (;;) {
      result = (await app.call('GET', `/api/v2/results/${accepted.body.requestId}`)).body;
      if (result.status !== 'pending' || Date.now() > deadline) break;
      await sleep(250);
    }
    expect(result.status, JSON.stringify(result)).toBe('done');
    const file = path.join(workDir, 'hidden.mp4');
    await writeFile(file, await app.download(result.href));
    const frames = await decodeVideoFrames(file, 320, 180);
    const last = frames.at(-1);
    if (!last) throw new Error('no frames');
    // The hidden green cover is gone: the red box shows once it has entered.
    const [red, green] = pixelAt(last, 320, 40, 40);
    expect(red).toBeGreaterThan(200);
    expect(green).toBeLessThan(60);
  });
});

/** A seeded generator (mulberry32), so a failure names payloads that come back on the next run. */
const randomOf = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const SEED = Number(process.env.BARCODE_SEED ?? 20_240_611);

/**
 * 1 to 16 ISO 8859-1 characters: mostly printable ASCII, some controls (code set A) and upper-half
 * letters (FNC4). No NUL: the API refuses it in any JSON string.
 */
const code128Payload = (random: () => number): string => {
  const length = 1 + Math.floor(random() * 16);
  let payload = '';
  for (let index = 0; index < length; index++) {
    const kind = random();
    const code = kind < 0.8 ? 32 + Math.floor(random() * 95) : kind < 0.9 ? 1 + Math.floor(random() * 31) : 160 + Math.floor(random() * 96);
    payload += String.fromCharCode(code);
  }
  return payload;
};

const ean13Number = (random: () => number): string => {
  const digits = Array.from({ length: 12 }, () => Math.floor(random() * 10)).join('');
  return digits + String(gs1CheckDigit(digits));
};

/** A page of barcodes in two columns, each in a box of its own, for many payloads per render. */
const PER_PAGE = 40;
const ROWS = PER_PAGE / 2;
const CELL = { width: 1180, height: 110, gapX: 20, gapY: 10 };
const PAGE = { width: 2 * CELL.width + 3 * CELL.gapX, height: ROWS * (CELL.height + CELL.gapY) + CELL.gapY };
const cellOf = (index: number) => ({
  left: CELL.gapX + (index % 2) * (CELL.width + CELL.gapX),
  top: CELL.gapY + Math.floor(index / 2) * (CELL.height + CELL.gapY),
  width: CELL.width,
  height: CELL.height,
});

/** A page decoded once, as grey levels: each cell is read from it rather than decoding the PNG again per cell. */
const greyPageOf = async (png: Buffer) => {
  const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, channels: info.channels };
};

const decodeCell = (page: Awaited<ReturnType<typeof greyPageOf>>, index: number, reader: Code128Reader | EAN13Reader): string | null => {
  const cell = cellOf(index);
  const luminance = new Uint8ClampedArray(cell.width * cell.height);
  for (let y = 0; y < cell.height; y++) {
    for (let x = 0; x < cell.width; x++) luminance[y * cell.width + x] = page.data[((cell.top + y) * page.width + cell.left + x) * page.channels] ?? 255;
  }
  const bitmap = new BinaryBitmap(new HybridBinarizer(new RGBLuminanceSource(luminance, cell.width, cell.height)));
  try {
    const result: Result = reader.decode(bitmap, new Map([[DecodeHintType.TRY_HARDER, true]]));
    return result.getText();
  } catch {
    return null;
  }
};

describe('BARCODE components', () => {
  let sheet: string;
  beforeAll(async () => {
    sheet = await templateWith(
      {
        components: Array.from({ length: PER_PAGE }, (_, index) => {
          const { left, top, width, height } = cellOf(index);
          return { id: `b${index}`, type: 'BARCODE', x: left, y: top, width, height, format: 'code128', value: `cell ${index}` };
        }),
      },
      PAGE,
    );
  });

  /** Renders the payloads a page at a time, as `format`, and reads each back from its cell. */
  const roundTrip = async (payloads: readonly string[], format: 'code128' | 'ean13') => {
    const decoded: (string | null)[] = [];
    for (let start = 0; start < payloads.length; start += PER_PAGE) {
      const page = payloads.slice(start, start + PER_PAGE);
      const data = Object.fromEntries(page.flatMap((value, index) => [[`b${index}.value`, value], [`b${index}.format`, format]]));
      const { png } = await renderPixels(sheet, data);
      const reader = format === 'code128' ? new Code128Reader() : new EAN13Reader();
      const grey = await greyPageOf(png);
      for (let index = 0; index < page.length; index++) decoded.push(decodeCell(grey, index, reader));
    }
    return decoded;
  };

  it('draws 1,000 random Code 128 payloads that decode back exactly', async () => {
    const random = randomOf(SEED);
    const payloads = Array.from({ length: 1000 }, () => code128Payload(random));
    const decoded = await roundTrip(payloads, 'code128');
    const wrong = payloads.flatMap((payload, index) => (decoded[index] === payload ? [] : [{ index, payload, decoded: decoded[index] }]));
    expect(wrong, `seed ${SEED}`).toEqual([]);
  }, 600_000);

  it('draws 200 random EAN-13 numbers that decode back exactly, given with or without their check digit', async () => {
    const random = randomOf(SEED + 1);
    const numbers = Array.from({ length: 200 }, () => ean13Number(random));
    // Every other one leaves the check digit to the service.
    const decoded = await roundTrip(numbers.map((number, index) => (index % 2 === 0 ? number : number.slice(0, 12))), 'ean13');
    const wrong = numbers.flatMap((number, index) => (decoded[index] === number ? [] : [{ index, number, decoded: decoded[index] }]));
    expect(wrong, `seed ${SEED}`).toEqual([]);
  }, 300_000);

  it('answers 400 naming the component and the rule for a value its format cannot hold, charging nothing', async () => {
    const templateId = await createTemplate({ width: 300, height: 100 });
    const saved = await putComponents(templateId, { components: [{ id: 'price', type: 'BARCODE', x: 0, y: 0, width: 300, height: 100, format: 'ean13', value: '5901234123458' }] });
    expect(saved.status).toBe(400);
    expect(saved.body).toMatchObject({ status: 400, msg: 'Invalid components' });
    expect(saved.body.errors).toEqual(["components[0] (id 'price').value: ean13: bad check digit 8; the check digit of 590123412345 is 7"]);
    expect((await putComponents(templateId, { components: [{ id: 'price', type: 'BARCODE', x: 0, y: 0, width: 300, height: 100, format: 'ean13', value: '5901234123457' }] })).status).toBe(200);

    const before = await creditsUsed();
    const badDigit = await render({ template: templateId, data: { 'price.value': '4006381333932' } });
    expect(badDigit.status).toBe(400);
    expect(badDigit.body.msg).toBe('Invalid data for the template');
    expect(badDigit.body.errors).toEqual(['data.price.value: ean13: bad check digit 2; the check digit of 400638133393 is 1']);
    const badCharacter = await render({ template: templateId, data: { 'price.format': 'code39', 'price.value': 'sku-1' } });
    expect(badCharacter.status).toBe(400);
    expect(badCharacter.body.errors).toEqual(["data.price.value: code39: character 's' cannot be encoded (Code 39 holds digits, capital letters, space and - . $ / + %)"]);
    const badFormat = await render({ template: templateId, data: { 'price.format': 'upca' } });
    expect(badFormat.status).toBe(400);
    expect(badFormat.body.errors).toEqual(['data.price.format: upca: must be 11 digits, or 12 with the check digit (it has 13)']);
    expect(await creditsUsed()).toBe(before);
  });
});
