import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderDocument, RenderedFile } from '../../application/ports/render-engine.js';
import { htmlDocument } from '../../application/renders/html-document.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { ComponentDocument } from '../../domain/templates/components/component-document.js';
import { resolveValues } from '../../domain/templates/components/resolve-values.js';
import { createHtmlCanvasRenderer } from '../../infrastructure/canvas/html-canvas-renderer.js';
import { createBrowserPool, type BrowserPool } from '../../infrastructure/rendering/browser-pool.js';
import { createChromiumRenderEngine } from '../../infrastructure/rendering/chromium-render-engine.js';
import { createHostPolicy } from '../../infrastructure/rendering/network-guard.js';
import { NO_ORG_ASSETS } from '../../infrastructure/rendering/org-assets.js';
import { prepareRenderPage } from '../../infrastructure/rendering/page-confinement.js';

/*
 * Text fitting in Chromium, through the renderer and the engine the service renders with: texts of
 * the world's scripts, short to far too long, shrunk into one centred box. Nothing may be cut at the
 * box's edges (ink on its outermost rows or columns is text the box cut), the size never grows with
 * the text's length and never goes below the minimum, and the render says what it did.
 */

const run = promisify(execFile);
const canvas = createHtmlCanvasRenderer();
const PAGE = { width: 400, height: 200 };
const BOX = { x: 50, y: 50, width: 300, height: 100 };
const MIN = 10;
const START = 48;

const graphemes = (text: string) => [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].map((part) => part.segment);
/** `length` characters (graphemes: an emoji with its modifiers is one) of the sample, repeated as needed. */
const textOf = (sample: string, length: number) => {
  const parts = graphemes(sample);
  return Array.from({ length }, (_, index) => parts[index % parts.length]).join('');
};

const SCRIPTS: Record<string, string> = {
  latin: 'The quick brown fox jumps over the lazy dog, naïve façade Ångström. ',
  cjk: '日本語のテキストと中文文本和한국어텍스트が混ざった長い文章です。',
  arabic: 'مَرْحَبًا بِكُمْ فِي النَّصِّ الْعَرَبِيِّ مَعَ التَّشْكِيلِ ',
  devanagari: 'हिन्दी पाठ में मात्राएँ और संयुक्ताक्षर क्षत्रिय ',
  emoji: '😀🎉👍🏽👨‍👩‍👧 🚀🌍 ',
  token: 'Supercalifragilisticexpialidocious0123456789ABCDEFGHIJKLMNOP ',
};
const LENGTHS = [3, 30, 100, 300];

const textComponent = (text: string, extra: Record<string, unknown> = {}): ComponentDocument => ({
  background: '#ffffff',
  components: [
    { id: 'title', type: 'TEXT', ...BOX, text, fontSize: START, fit: 'shrink', minFontSize: MIN, align: 'center', verticalAlign: 'middle', color: '#000000', ...extra },
  ],
});

let pool: BrowserPool;
let engine: ReturnType<typeof createChromiumRenderEngine>;
let scratch: string;

beforeAll(async () => {
  pool = createBrowserPool({ browsers: 1, pagesPerBrowser: 2, logger: pino({ level: 'silent' }), preparePage: prepareRenderPage(createHostPolicy({ allowedPrivateHosts: [] }), NO_ORG_ASSETS) });
  engine = createChromiumRenderEngine({ pool, loadTimeoutMs: 10_000, captureTimeoutMs: 10_000, maxPdfPages: 50 });
  scratch = await mkdtemp(path.join(tmpdir(), 'text-fit-'));
});
afterAll(async () => {
  await pool?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const render = async (document: ComponentDocument, format: 'png' | 'pdf' = 'png'): Promise<RenderedFile> => {
  const html = await canvas.toHtml(document, resolveValues(document, {}), PAGE);
  return engine.render({ html, ...PAGE, scaleFactor: 1, waitTime: 0 }, { tenant: 'org-fit', format, quality: 100, crop: null });
};

/** Rows and columns of the box (page pixels) holding ink: anything darker than the white background. */
const inkOf = async (png: Buffer) => {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const inkAt = (x: number, y: number) => {
    const offset = (y * info.width + x) * info.channels;
    return (data[offset] ?? 255) < 200 || (data[offset + 1] ?? 255) < 200 || (data[offset + 2] ?? 255) < 200;
  };
  const rows = (y: number) => Array.from({ length: BOX.width }, (_, dx) => inkAt(BOX.x + dx, y)).some(Boolean);
  const columns = (x: number) => Array.from({ length: BOX.height }, (_, dy) => inkAt(x, BOX.y + dy)).some(Boolean);
  let outside = false;
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const inBox = x >= BOX.x && x < BOX.x + BOX.width && y >= BOX.y && y < BOX.y + BOX.height;
      if (!inBox && inkAt(x, y)) outside = true;
    }
  }
  return {
    outside,
    top: rows(BOX.y),
    bottom: rows(BOX.y + BOX.height - 1),
    left: columns(BOX.x),
    right: columns(BOX.x + BOX.width - 1),
    any: Array.from({ length: BOX.height }, (_, dy) => rows(BOX.y + dy)).some(Boolean),
  };
};

const pdfText = async (pdf: Buffer, name: string) => {
  const file = path.join(scratch, `${name}.pdf`);
  await writeFile(file, pdf);
  return (await run('pdftotext', ['-layout', file, '-'])).stdout;
};

const ELLIPSIS = '\u2026';
/** The bidi controls pdftotext wraps right-to-left runs in (embeddings, overrides, isolates): not the template's text. */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
/** A text as pdftotext's output and the template's text are compared: no bidi controls, no whitespace (line breaks and spacing are the layout's). */
const normalise = (text: string) => text.replace(BIDI_CONTROLS, '').replace(/\s+/g, '');
const sorted = (parts: readonly string[]) => [...parts].sort();

/*
 * How a script's text is found in pdftotext's output (poppler 22.12). pdftotext rebuilds the text
 * from the glyphs the PDF places, in the order it reads them on a line, not from the document's text,
 * and some scripts do not come back in their order:
 * - latin, cjk, devanagari, token: whole and in order (Devanagari vowel signs drawn before their
 *   consonant come back in their logical place), so the texts must be equal;
 * - emoji: each cluster comes back whole (ZWJ sequences and skin tones included), but the clusters
 *   of a line do not keep their order, so the texts are compared as multisets of grapheme clusters;
 * - arabic: the letters come back in order, but each combining mark (harakat, shadda, sukun) before
 *   the letter it sits on, out of its cluster, so not even the clusters can be compared: the letters
 *   are compared in order without their marks, and the whole text as a multiset of code points.
 */
type Order = 'exact' | 'graphemes' | 'letters';
const ORDER: Record<string, Order> = { latin: 'exact', cjk: 'exact', arabic: 'letters', devanagari: 'exact', emoji: 'graphemes', token: 'exact' };
const MARKS = /\p{M}/gu;
const comparable = (text: string, order: Order) => {
  const normal = normalise(text);
  if (order === 'exact') return { text: normal };
  if (order === 'graphemes') return { graphemes: sorted(graphemes(normal)) };
  return { letters: normal.replace(MARKS, ''), codePoints: sorted([...normal]) };
};

/** pdftotext finds the whole text in the PDF. */
const expectWholeText = (extracted: string, text: string, order: Order, label: string) =>
  expect(comparable(extracted, order), `${label}: pdftotext finds the whole text`).toEqual(comparable(text, order));

/** pdftotext finds a part of the text, cut (shorter, its start when the script keeps its order) and ended by the ellipsis. */
const expectCutText = (extracted: string, text: string, order: Order, label: string) => {
  const normal = normalise(extracted);
  expect(normal.split(ELLIPSIS).length - 1, `${label}: one ellipsis`).toBe(1);
  const kept = normal.replace(ELLIPSIS, '');
  const whole = normalise(text);
  if (order === 'exact') expect(whole.startsWith(kept) && kept.length < whole.length, `${label}: the start of the text is kept`).toBe(true);
  const left = new Map<string, number>();
  for (const point of whole) left.set(point, (left.get(point) ?? 0) + 1);
  for (const point of kept) left.set(point, (left.get(point) ?? 0) - 1);
  expect([...left.values()].some((count) => count < 0), `${label}: nothing but the text is kept`).toBe(false);
  expect([...kept].length, `${label}: some of the text is kept, not all`).toBeGreaterThan(0);
  expect([...kept].length).toBeLessThan([...whole].length);
};

describe('text fitting of a canvas TEXT in shrink mode', () => {
  for (const [script, sample] of Object.entries(SCRIPTS)) {
    it(`fits ${script} texts of ${LENGTHS.join(', ')} characters without cutting a glyph, never larger for a longer text; the fit says what was drawn`, async () => {
      const sizes: number[] = [];
      for (const length of LENGTHS) {
        const text = textOf(sample, length);
        // Both formats at once: the pool has a page for each.
        const [file, pdf] = await Promise.all([render(textComponent(text)), render(textComponent(text), 'pdf')]);
        const fit = file.fit?.['title'];
        expect(fit, `${script} ${length}: the render reports its fit`).toBeDefined();
        if (!fit) return;
        expect(fit.fontSize).toBeGreaterThanOrEqual(MIN);
        expect(fit.fontSize).toBeLessThanOrEqual(START);
        expect(fit.lines).toBeGreaterThanOrEqual(1);
        const ink = await inkOf(file.content);
        expect(ink.any, `${script} ${length}: the text is drawn`).toBe(true);
        expect(ink.outside, `${script} ${length}: nothing drawn outside the box`).toBe(false);
        expect({ top: ink.top, bottom: ink.bottom, left: ink.left, right: ink.right }, `${script} ${length}: no glyph cut at the box's edges (${JSON.stringify(fit)})`).toEqual({
          top: false,
          bottom: false,
          left: false,
          right: false,
        });
        // What the fit says is what was drawn: the PDF, fitted the same, holds the whole text unless the
        // fit says it was cut, and a text is cut only when it does not fit whole at the minimum size.
        expect(pdf.fit?.['title'], `${script} ${length}: the PDF is fitted as the png is`).toEqual(fit);
        const extracted = await pdfText(pdf.content, `canvas-${script}-${length}`);
        if (fit.truncated) {
          expect(fit.fontSize, `${script} ${length}: cut at the minimum size only`).toBe(MIN);
          expectCutText(extracted, text, ORDER[script] ?? 'exact', `${script} ${length}`);
          const refused = await render(textComponent(text, { overflow: 'error' })).then(
            () => undefined,
            (error: unknown) => error,
          );
          expect(refused, `${script} ${length}: cut only because it cannot fit whole at the minimum size`).toBeInstanceOf(DomainError);
        } else {
          expectWholeText(extracted, text, ORDER[script] ?? 'exact', `${script} ${length}`);
        }
        sizes.push(fit.fontSize);
      }
      expect(sizes, `${script}: sizes by length`).toEqual([...sizes].sort((a, b) => b - a));
      // The shortest text keeps its own size; the longest needs the smallest.
      expect(sizes[0]).toBe(START);
      expect(sizes.at(-1)).toBeLessThan(START);
    });
  }

  it('cuts a text that does not fit at the minimum with an ellipsis, and says so; the PDF holds the kept text', async () => {
    const text = textOf(SCRIPTS['latin'] ?? '', 2_000);
    const file = await render(textComponent(text), 'pdf');
    expect(file.fit?.['title']).toMatchObject({ fontSize: MIN, truncated: true });
    const extracted = (await pdfText(file.content, 'ellipsis')).replace(/\s+/g, ' ').trim();
    expect(extracted.endsWith('\u2026')).toBe(true);
    expect(text.replace(/\s+/g, ' ').startsWith(extracted.slice(0, -1).trim())).toBe(true);
    expect(extracted.length).toBeGreaterThan(100);
  });

  it('keeps every word whole while a smaller size holds them, and gives the whole text to the PDF', async () => {
    const text = 'Fitting keeps words whole: extraordinarily long words shrink the text instead of breaking';
    const file = await render(textComponent(text), 'pdf');
    const fit = file.fit?.['title'];
    expect(fit?.truncated).toBe(false);
    expect((await pdfText(file.content, 'whole')).replace(/\s+/g, ' ').trim()).toBe(text);
  });

  it('holds the text to maxLines', async () => {
    const file = await render(textComponent(textOf(SCRIPTS['latin'] ?? '', 100), { maxLines: 2 }));
    expect(file.fit?.['title']?.lines).toBeLessThanOrEqual(2);
  });

  it('grows a short text to fill its box in fill mode', async () => {
    const file = await render(textComponent('Big', { fit: 'fill', fontSize: 12 }));
    expect(file.fit?.['title']?.fontSize).toBeGreaterThan(40);
    const ink = await inkOf(file.content);
    expect(ink).toMatchObject({ outside: false, top: false, bottom: false, left: false, right: false });
  });

  it('refuses a text that cannot fit when overflow is error, naming the component', async () => {
    const refused = await render(textComponent(textOf(SCRIPTS['latin'] ?? '', 3_000), { overflow: 'error' })).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).code).toBe('validation');
    expect((refused as DomainError).details.join(' ')).toMatch(/title/);
  });

  it('keeps the autoFit switch meaning shrink', async () => {
    const file = await render(textComponent(textOf(SCRIPTS['latin'] ?? '', 300), { fit: 'none', autoFit: true }));
    expect(file.fit?.['title']?.fontSize).toBeLessThan(START);
  });
});

describe('text fitting of html elements marked data-fit', () => {
  const htmlRender = (body: string, format: 'png' | 'pdf') => {
    const document: RenderDocument = htmlDocument(body, '.box{position:absolute;left:50px;top:50px;width:300px;height:100px;font-size:48px;display:flex;align-items:center;justify-content:center;text-align:center;overflow:hidden;font-family:"DejaVu Sans"}', {
      ...PAGE,
      scaleFactor: 1,
      waitTime: 0,
    });
    return engine.render(document, { tenant: 'org-fit', format, quality: 100, crop: null });
  };

  it('shrinks the text of a fixed box in png and in PDF, reporting it by element id; pdftotext finds all of it', async () => {
    const text = textOf(SCRIPTS['latin'] ?? '', 200).trim();
    const body = `<div class="box" id="headline" data-fit="shrink" data-min-font-size="10">${text}</div>`;
    const png = await htmlRender(body, 'png');
    expect(png.fit?.['headline']?.fontSize).toBeLessThan(48);
    expect(png.fit?.['headline']?.truncated).toBe(false);
    const ink = await inkOf(png.content);
    expect(ink).toMatchObject({ any: true, outside: false, top: false, bottom: false, left: false, right: false });
    const pdf = await htmlRender(body, 'pdf');
    expect(pdf.fit?.['headline']).toEqual(png.fit?.['headline']);
    expect((await pdfText(pdf.content, 'html')).replace(/\s+/g, ' ').trim()).toBe(text.replace(/\s+/g, ' '));
  });

  for (const [script, sample] of Object.entries(SCRIPTS)) {
    it(`fits ${script} texts of ${LENGTHS.join(', ')} characters in a marked element without cutting a glyph, never larger for a longer text, in png and in PDF`, async () => {
      const sizes: number[] = [];
      for (const length of LENGTHS) {
        const text = textOf(sample, length);
        const body = `<div class="box" id="text" data-fit="shrink" data-min-font-size="${MIN}">${text}</div>`;
        const [file, pdf] = await Promise.all([htmlRender(body, 'png'), htmlRender(body, 'pdf')]);
        const fit = file.fit?.['text'];
        expect(fit, `${script} ${length}: the render reports its fit`).toBeDefined();
        if (!fit) return;
        expect(fit.fontSize, `${script} ${length}`).toBeGreaterThanOrEqual(MIN);
        expect(fit.fontSize, `${script} ${length}`).toBeLessThanOrEqual(48);
        const ink = await inkOf(file.content);
        expect(ink, `${script} ${length}: drawn inside the box, nothing cut at its edges (${JSON.stringify(fit)})`).toMatchObject({
          any: true,
          outside: false,
          top: false,
          bottom: false,
          left: false,
          right: false,
        });
        expect(pdf.fit?.['text'], `${script} ${length}: the PDF is fitted as the png is`).toEqual(fit);
        const extracted = await pdfText(pdf.content, `html-${script}-${length}`);
        if (fit.truncated) {
          expect(fit.fontSize, `${script} ${length}: cut at the minimum size only`).toBe(MIN);
          expectCutText(extracted, text, ORDER[script] ?? 'exact', `${script} ${length}`);
        } else {
          expectWholeText(extracted, text, ORDER[script] ?? 'exact', `${script} ${length}`);
        }
        sizes.push(fit.fontSize);
      }
      expect(sizes, `${script}: sizes by length`).toEqual([...sizes].sort((a, b) => b - a));
    });
  }

  it('names an element without an id by its place among fitted elements', async () => {
    const file = await htmlRender('<div class="box" data-fit="shrink">short</div>', 'png');
    expect(Object.keys(file.fit ?? {})).toEqual(['fit-1']);
  });
});
