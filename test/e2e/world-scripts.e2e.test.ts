import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { decodeVideoFrames } from '../support/video-files.js';
import { sleep } from '../support/wait-for.js';

/**
 * The world's scripts draw as glyphs in every output: two different characters of each script, each
 * in a box of its own, must leave different ink. A missing font draws the same empty box ("tofu") for
 * both, so identical ink is what a missing script looks like; a pair of private-use characters, which
 * no installed font draws, is the control that shows the comparison tells tofu apart.
 * WORLD_SCRIPTS_KEEP=1 keeps the rendered files (their directory is printed) to look at.
 */

const run = promisify(execFile);

interface Pair {
  readonly script: string;
  readonly chars: readonly [string, string];
  /** Colour emoji: the boxes must hold saturated, non-grey ink. */
  readonly colour?: boolean;
}

const PAIRS: readonly Pair[] = [
  { script: 'Chinese', chars: ['中', '国'] },
  { script: 'Japanese kanji', chars: ['日', '本'] },
  { script: 'Japanese kana', chars: ['あ', 'カ'] },
  { script: 'Korean', chars: ['한', '국'] },
  { script: 'Thai', chars: ['ก', 'ข'] },
  { script: 'Devanagari', chars: ['क', 'ख'] },
  { script: 'Bengali', chars: ['ক', 'খ'] },
  { script: 'Tamil', chars: ['க', 'ங'] },
  { script: 'Arabic', chars: ['ب', 'ج'] },
  { script: 'Hebrew', chars: ['ש', 'ל'] },
  { script: 'emoji', chars: ['😀', '🚀'], colour: true },
];
/** Private-use characters: no font has them, so both draw as the same missing-glyph box. */
const CONTROL: readonly [string, string] = ['\uE000', '\uE001'];

/** "Peace": its first letter, seen, is the rightmost one, and its letters join. */
const WORD = 'سلام';
/** The same letters kept apart by zero-width non-joiners: isolated forms, so other ink than the joined word. */
const WORD_UNJOINED = WORD.split('').join('\u200C');

interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

const CELL = 72;
const STEP = 80;
const MARGIN = 8;
const WIDTH = 352;
const HEIGHT = 648;
const FONT_SIZE = 48;

/** Two pairs to a row: columns 0-1 and 2-3, with a wider gap between the pairs. */
const cell = (index: number, column: 0 | 1): Box => {
  const row = Math.floor(index / 2);
  const col = (index % 2) * 2 + column;
  return { x: MARGIN + col * STEP + (col >= 2 ? 16 : 0), y: MARGIN + row * STEP, width: CELL, height: CELL };
};
const pairBoxes = (index: number): [Box, Box] => [cell(index, 0), cell(index, 1)];
const CONTROL_INDEX = PAIRS.length;
const WORD_ROW_Y = MARGIN + Math.ceil((PAIRS.length + 1) / 2) * STEP;
const WORD_BOX: Box = { x: MARGIN, y: WORD_ROW_Y, width: 160, height: CELL };
const UNJOINED_BOX: Box = { x: MARGIN + 176, y: WORD_ROW_Y, width: 160, height: CELL };
const COLOURED_WORD_BOX: Box = { x: MARGIN, y: WORD_ROW_Y + STEP, width: 160, height: CELL };

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const at = (box: Box) => `left:${box.x}px;top:${box.y}px;width:${box.width}px;height:${box.height}px`;

/** The page every still format draws: no font named but the generic one, as a template might. */
const CSS = [
  'html,body{margin:0;background:#ffffff;color:#000000;font-family:sans-serif}',
  `.box{position:absolute;font-size:${FONT_SIZE}px;line-height:${CELL}px;text-align:center;overflow:hidden;white-space:nowrap}`,
  '.first{color:#ff0000}',
].join('\n');
const BODY = [
  ...PAIRS.flatMap((pair, index) => pairBoxes(index).map((box, k) => `<div class="box" style="${at(box)}">${escapeHtml(pair.chars[k] ?? '')}</div>`)),
  ...pairBoxes(CONTROL_INDEX).map((box, k) => `<div class="box" style="${at(box)}">${CONTROL[k]}</div>`),
  `<div class="box" dir="rtl" style="${at(WORD_BOX)}">${WORD}</div>`,
  `<div class="box" dir="rtl" style="${at(UNJOINED_BOX)}">${WORD_UNJOINED}</div>`,
  `<div class="box" dir="rtl" style="${at(COLOURED_WORD_BOX)}"><span class="first">${WORD[0]}</span>${WORD.slice(1)}</div>`,
].join('\n');
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><style>${CSS}</style></head><body>${BODY}</body></html>`;

/** The same boxes as canvas-html TEXT components, for the video. */
const textComponent = (id: string, box: Box, text: string) => ({
  id,
  type: 'TEXT',
  ...box,
  text,
  fontSize: FONT_SIZE,
  align: 'center',
  verticalAlign: 'middle',
  lineHeight: 1,
  color: '#000000',
});
const VIDEO_DOCUMENT = {
  background: '#ffffff',
  components: [
    ...PAIRS.flatMap((pair, index) => pairBoxes(index).map((box, k) => textComponent(`pair${index}_${k}`, box, pair.chars[k] ?? ''))),
    ...pairBoxes(CONTROL_INDEX).map((box, k) => textComponent(`control_${k}`, box, CONTROL[k] ?? '')),
    textComponent('word', WORD_BOX, WORD),
    textComponent('unjoined', UNJOINED_BOX, WORD_UNJOINED),
  ],
};

interface Raster {
  readonly data: Buffer;
  readonly width: number;
  readonly height: number;
  readonly channels: number;
}

const rasterOf = async (bytes: Buffer): Promise<Raster> => {
  const { data, info } = await sharp(bytes).flatten({ background: '#ffffff' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
};

const rgbAt = (raster: Raster, x: number, y: number): [number, number, number] => {
  const offset = (y * raster.width + x) * raster.channels;
  return [raster.data[offset] ?? 255, raster.data[offset + 1] ?? 255, raster.data[offset + 2] ?? 255];
};

/** Anything clearly darker or more coloured than the white page is ink. */
const isInk = ([r, g, b]: [number, number, number]) => r + g + b < 600;
const isSaturated = ([r, g, b]: [number, number, number]) => Math.max(r, g, b) - Math.min(r, g, b) > 100;

/** Which pixels of the box hold ink, row by row. */
const inkMask = (raster: Raster, box: Box) => {
  const mask = new Uint8Array(box.width * box.height);
  for (let y = 0; y < box.height; y++) {
    for (let x = 0; x < box.width; x++) mask[y * box.width + x] = isInk(rgbAt(raster, box.x + x, box.y + y)) ? 1 : 0;
  }
  return mask;
};

const count = (mask: Uint8Array) => mask.reduce((sum, value) => sum + value, 0);

/** How different two equal-sized masks are: pixels inked in one only, over pixels inked in either. */
const inkDifference = (a: Uint8Array, b: Uint8Array) => {
  let either = 0;
  let one = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i] || b[i]) either++;
    if (a[i] !== b[i]) one++;
  }
  return either === 0 ? 0 : one / either;
};

const saturatedPixels = (raster: Raster, box: Box) => {
  let saturated = 0;
  for (let y = box.y; y < box.y + box.height; y++) {
    for (let x = box.x; x < box.x + box.width; x++) if (isSaturated(rgbAt(raster, x, y))) saturated++;
  }
  return saturated;
};

/** Mean x of the box's pixels that `select` picks. */
const meanX = (raster: Raster, box: Box, select: (rgb: [number, number, number]) => boolean) => {
  let sum = 0;
  let n = 0;
  for (let y = box.y; y < box.y + box.height; y++) {
    for (let x = box.x; x < box.x + box.width; x++) {
      if (select(rgbAt(raster, x, y))) {
        sum += x;
        n++;
      }
    }
  }
  return { mean: n === 0 ? NaN : sum / n, pixels: n };
};

/** Tofu boxes are identical; different glyphs differ in well over this share of their ink. */
const MIN_DIFFERENCE = 0.2;
/** A glyph at 48 px inks at least this many pixels of its box. */
const MIN_INK = 40;

/** Checks every script pair (and the control) in a raster of the page. */
const expectGlyphs = (raster: Raster, pairs: readonly Pair[], format: string) => {
  const measured: string[] = [];
  for (const pair of pairs) {
    const index = PAIRS.indexOf(pair);
    const [a, b] = pairBoxes(index).map((box) => inkMask(raster, box)) as [Uint8Array, Uint8Array];
    const difference = inkDifference(a, b);
    measured.push(`${pair.script}: ink ${count(a)}/${count(b)}, difference ${difference.toFixed(2)}`);
    expect.soft(count(a), `${format}: ${pair.script} ${pair.chars[0]} has ink`).toBeGreaterThan(MIN_INK);
    expect.soft(count(b), `${format}: ${pair.script} ${pair.chars[1]} has ink`).toBeGreaterThan(MIN_INK);
    expect.soft(difference, `${format}: ${pair.script} ${pair.chars.join(' and ')} draw different glyphs`).toBeGreaterThan(MIN_DIFFERENCE);
    if (pair.colour) {
      for (const [k, box] of pairBoxes(index).entries()) {
        expect.soft(saturatedPixels(raster, box), `${format}: ${pair.chars[k]} is in colour`).toBeGreaterThan(200);
      }
    }
  }
  // The control: what a script without a font looks like, and that the comparison sees it.
  const [c0, c1] = pairBoxes(CONTROL_INDEX).map((box) => inkMask(raster, box)) as [Uint8Array, Uint8Array];
  const controlDifference = inkDifference(c0, c1);
  measured.push(`control (tofu): ink ${count(c0)}/${count(c1)}, difference ${controlDifference.toFixed(2)}`);
  expect.soft(controlDifference, `${format}: two missing glyphs draw the same box`).toBeLessThan(MIN_DIFFERENCE / 2);

  // Arabic is shaped: the joined word inks otherwise than its letters kept apart.
  const word = inkMask(raster, WORD_BOX);
  const unjoined = inkMask(raster, UNJOINED_BOX);
  const shaping = inkDifference(word, unjoined);
  measured.push(`Arabic word: ink ${count(word)}/${count(unjoined)}, joined vs unjoined difference ${shaping.toFixed(2)}`);
  expect.soft(count(word), `${format}: ${WORD} has ink`).toBeGreaterThan(MIN_INK);
  expect.soft(shaping, `${format}: ${WORD} is shaped (joined forms)`).toBeGreaterThan(MIN_DIFFERENCE);
  return measured;
};

/** In a right-to-left paragraph the word's first letter (red) is drawn right of the rest (black). */
const expectRightToLeft = (raster: Raster, format: string) => {
  const first = meanX(raster, COLOURED_WORD_BOX, ([r, g, b]) => r > 150 && g < 110 && b < 110);
  const rest = meanX(raster, COLOURED_WORD_BOX, ([r, g, b]) => Math.max(r, g, b) < 110);
  expect(first.pixels, `${format}: the first letter has ink`).toBeGreaterThan(MIN_INK / 2);
  expect(rest.pixels, `${format}: the rest of the word has ink`).toBeGreaterThan(MIN_INK);
  expect(first.mean, `${format}: ${WORD} starts at the right`).toBeGreaterThan(rest.mean + 10);
  return `Arabic right to left: first letter at x ${first.mean.toFixed(0)}, the rest at x ${rest.mean.toFixed(0)}`;
};

let app: TestApp;
let workDir: string;
let pageServer: Server;
let pageUrl: string;

const keep = async (name: string, bytes: Buffer) => {
  const file = path.join(workDir, name);
  await writeFile(file, bytes);
  return file;
};

const createHtmlTemplate = async () => {
  const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'World scripts', width: WIDTH, height: HEIGHT, editor: 'html-editor' } });
  expect(created.status).toBe(200);
  const put = await app.call('PUT', `/api/v2/my-templates/${created.body.identifier}/html-editor`, { body: { html: BODY, css: CSS } });
  expect(put.status).toBe(200);
  return created.body.identifier as string;
};

let htmlTemplate: string;

beforeAll(async () => {
  pageServer = createServer((req, res) => {
    if (req.url !== '/scripts.html') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
  });
  await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/scripts.html`;
  // The screenshot's page is served on loopback, which is private unless allowed.
  app = await startTestApp({ rendering: 'worker', env: { ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
  workDir = await mkdtemp(path.join(os.tmpdir(), 'world-scripts-'));
  htmlTemplate = await createHtmlTemplate();
});
afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => (pageServer ? pageServer.close(resolve) : resolve(undefined)));
  if (!workDir) return;
  if (process.env.WORLD_SCRIPTS_KEEP) console.log(`world-scripts: rendered files kept in ${workDir}`);
  else await rm(workDir, { recursive: true, force: true });
});

describe("the world's scripts draw as glyphs", () => {
  it('in a png image', async () => {
    const response = await app.call('POST', '/api/v2/render', { body: { template: htmlTemplate, outputFormat: 'png', cache: false } });
    expect(response.status).toBe(200);
    const bytes = await app.download(response.body.href);
    await keep('image.png', bytes);
    const raster = await rasterOf(bytes);
    expect([raster.width, raster.height]).toEqual([WIDTH, HEIGHT]);
    const measured = [...expectGlyphs(raster, PAIRS, 'png'), expectRightToLeft(raster, 'png')];
    console.log(`png\n  ${measured.join('\n  ')}`);
  });

  it('in a PDF, as text', async () => {
    const response = await app.call('POST', '/api/v2/render', { body: { template: htmlTemplate, outputFormat: 'pdf', cache: false } });
    expect(response.status).toBe(200);
    const pdf = await keep('document.pdf', await app.download(response.body.href));
    // At 96 dpi a CSS pixel is a raster pixel: the boxes are where the page put them.
    await run('pdftoppm', ['-r', '96', '-png', '-singlefile', '-f', '1', '-l', '1', pdf, path.join(workDir, 'document')]);
    const raster = await rasterOf(await readFile(path.join(workDir, 'document.png')));
    expect(Math.abs(raster.width - WIDTH)).toBeLessThanOrEqual(1);
    expect(Math.abs(raster.height - HEIGHT)).toBeLessThanOrEqual(1);
    const measured = [...expectGlyphs(raster, PAIRS, 'pdf'), expectRightToLeft(raster, 'pdf')];
    console.log(`pdf\n  ${measured.join('\n  ')}`);
    // Text stays text: the characters (not only their pictures) are in the PDF.
    const { stdout: text } = await run('pdftotext', ['-enc', 'UTF-8', pdf, '-']);
    for (const pair of PAIRS.filter((p) => !p.colour && p.script !== 'Arabic')) {
      for (const char of pair.chars) expect.soft(text, `pdf text has ${pair.script} ${char}`).toContain(char);
    }
  });

  it('in a URL screenshot', async () => {
    const response = await app.call('POST', '/api/v1/screenshots', { body: { url: pageUrl, width: WIDTH, height: HEIGHT } });
    expect(response.status).toBe(200);
    const bytes = await app.download(response.body.href);
    await keep('screenshot.png', bytes);
    const raster = await rasterOf(bytes);
    expect([raster.width, raster.height]).toEqual([WIDTH, HEIGHT]);
    const measured = [...expectGlyphs(raster, PAIRS, 'screenshot'), expectRightToLeft(raster, 'screenshot')];
    console.log(`screenshot\n  ${measured.join('\n  ')}`);
  });

  it('in an mp4 video of canvas TEXT components', async () => {
    const created = await app.call('POST', '/api/v2/my-templates', {
      body: { name: 'World scripts video', width: WIDTH, height: HEIGHT, editor: 'canvas-html', outputFormat: 'mp4', recordDuration: 1000, fps: 24 },
    });
    expect(created.status).toBe(200);
    const templateId = created.body.identifier as string;
    expect((await app.call('PUT', `/api/v2/my-templates/${templateId}/components`, { body: VIDEO_DOCUMENT })).status).toBe(200);

    const accepted = await app.call('POST', '/api/v2/render', { body: { template: templateId, outputFormat: 'mp4', cache: false } });
    expect(accepted.status).toBe(202);
    const deadline = Date.now() + 120_000;
    let detail = await app.call('GET', `/api/v2/results/${accepted.body.requestId}`);
    while (detail.body.status === 'pending' && Date.now() < deadline) {
      await sleep(250);
      detail = await app.call('GET', `/api/v2/results/${accepted.body.requestId}`);
    }
    expect(detail.body.status).toBe('done');
    const file = await keep('video.mp4', await app.download(accepted.body.href));
    const frames = await decodeVideoFrames(file, WIDTH, HEIGHT);
    expect(frames.length).toBeGreaterThan(0);
    // The last frame, as a player shows it (H.264, 4:2:0 chroma).
    const last = frames[frames.length - 1] ?? Buffer.alloc(0);
    const raster: Raster = { data: last, width: WIDTH, height: HEIGHT, channels: 3 };
    await keep('video-frame.png', await sharp(last, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } }).png().toBuffer());
    const measured = expectGlyphs(raster, PAIRS, 'video');
    console.log(`video\n  ${measured.join('\n  ')}`);
  }, 180_000);
});
