import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import { pino } from 'pino';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderDocument } from '../../application/ports/render-engine.js';
import { createBrowserPool, type BrowserPool } from '../../infrastructure/rendering/browser-pool.js';
import { createChromiumRenderEngine } from '../../infrastructure/rendering/chromium-render-engine.js';
import { createHostPolicy } from '../../infrastructure/rendering/network-guard.js';
import { NO_ORG_ASSETS } from '../../infrastructure/rendering/org-assets.js';
import { prepareRenderPage } from '../../infrastructure/rendering/page-confinement.js';
import { loadTemplateForPrint, prepareTemplateHost } from '../../infrastructure/rendering/template-document.js';
import { pdfinfo } from '../support/pdf-info.js';

/*
 * A template's document is written into a new frame of the page's warm host (template-document.ts),
 * or, when no script can run in it, into the host's one sandboxed frame, rewritten from render to
 * render. What a navigation gave for free must still hold: each render has a realm of its own (or
 * one no script ever ran in), nothing of the last document shows, and the capture waits for the
 * document's subresources, however late they come. A paged PDF's script-free document is written over
 * the host's own document (printing prints the main frame) and the host written back after it.
 */

const IMAGE_DELAY_MS = 700;

let pool: BrowserPool;
let engine: ReturnType<typeof createChromiumRenderEngine>;
let server: http.Server;
let origin: string;
let greenPng: Buffer;
let redPng: Buffer;
/** What /swatch.png answers now (no-store, as uploads are served). */
let swatch: Buffer;

beforeAll(async () => {
  greenPng = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#00ff00' } }).png().toBuffer();
  redPng = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#ff0000' } }).png().toBuffer();
  swatch = greenPng;
  server = http.createServer((request, response) => {
    if (request.url === '/swatch.png') return void response.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' }).end(swatch);
    setTimeout(() => response.writeHead(200, { 'content-type': 'image/png' }).end(greenPng), IMAGE_DELAY_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  pool = createBrowserPool({
    // One page: every render of the file goes through the same warm host.
    browsers: 1,
    pagesPerBrowser: 1,
    logger: pino({ level: 'silent' }),
    preparePage: prepareRenderPage(createHostPolicy({ allowedPrivateHosts: ['127.0.0.1'] }), NO_ORG_ASSETS),
    resetPage: prepareTemplateHost,
  });
  engine = createChromiumRenderEngine({ pool, loadTimeoutMs: 10_000, captureTimeoutMs: 10_000, maxPdfPages: 10 });
});
afterAll(async () => {
  await pool?.close();
  await new Promise((resolve) => server?.close(resolve));
});

const documentOf = (body: string): RenderDocument => ({
  html: `<!doctype html><html><head><style>html,body{margin:0;width:100px;height:50px;background:#fff}</style></head><body>${body}</body></html>`,
  width: 100,
  height: 50,
  scaleFactor: 1,
  waitTime: 0,
});

const pixelsOf = async (body: string) => {
  const { content } = await engine.render(documentOf(body), { tenant: 'org-a', format: 'png', quality: 100, crop: null });
  return sharp(content).removeAlpha().raw().toBuffer({ resolveWithObject: true });
};

const centreOf = async (body: string) => {
  const { data, info } = await pixelsOf(body);
  const at = (Math.floor(info.height / 2) * info.width + Math.floor(info.width / 2)) * 3;
  return [data[at], data[at + 1], data[at + 2]];
};

/** The frames in the host of the pool's one page as its last reset left them: their ids, which are sandboxed, what they show. */
const hostFrames = () =>
  pool.withPage(
    async (page, cdp) => {
      const { frameTree } = await cdp.send('Page.getFrameTree');
      const frames = await page.evaluate(() =>
        [...document.querySelectorAll('iframe')].map((frame) => ({ sandbox: frame.getAttribute('sandbox'), body: frame.contentDocument?.body?.innerHTML })),
      );
      return { ids: (frameTree.childFrames ?? []).map((child) => child.frame.id), frames };
    },
    { tenant: 'org-a', deadlineMs: 10_000 },
  );

const GREEN = [0, 255, 0];

describe('a template written into a frame of the warm host', () => {
  it('runs in a realm of its own each time: its const declarations and globals start afresh on the same page', async () => {
    // A second run in the same realm would throw at `const` (body left white) or find the global (red).
    const body = `<script>const seen = window.leftByEarlierRender; window.leftByEarlierRender = true;
      document.body.style.background = seen ? '#ff0000' : '#00ff00';</script>`;
    for (let run = 0; run < 3; run++) expect(await centreOf(body), `render ${run + 1}`).toEqual(GREEN);
  });

  it("waits for a slow image before the capture, and runs the document's own load handlers", async () => {
    const started = performance.now();
    expect(await centreOf(`<img src="${origin}/green.png" style="display:block;width:100px;height:50px">`)).toEqual(GREEN);
    expect(performance.now() - started).toBeGreaterThanOrEqual(IMAGE_DELAY_MS);
    expect(await centreOf('<script>onload = () => { document.body.style.background = "#00ff00"; }</script>')).toEqual(GREEN);
  });

  it('keeps the confinement of every page in the written frame (no window.open, no WebRTC)', async () => {
    const body = `<script>const confined = window.open('about:blank') === null && typeof RTCPeerConnection === 'undefined';
      document.body.style.background = confined ? '#00ff00' : '#ff0000';</script>`;
    expect(await centreOf(body)).toEqual(GREEN);
  });

  it('draws a document no script can run in within the one sandboxed frame, reused, with the pixels a fresh frame gives', async () => {
    const design = '<div style="margin:5px;width:90px;height:40px;background:linear-gradient(90deg,#123456,#fedcba);font:12px sans-serif;color:#fff">Card</div>';
    const reused = await pixelsOf(design);
    const framesAfterOne = await hostFrames();
    await pixelsOf(design);
    await pixelsOf(design);
    const framesAfterThree = await hostFrames();
    // Blanked by the reset: nothing of the last document (an animation, a video) runs on between renders.
    expect(framesAfterOne).toEqual({ ids: [expect.any(String)], frames: [{ sandbox: 'allow-same-origin', body: '' }] });
    expect(framesAfterThree).toEqual(framesAfterOne);
    // The same design with an (empty) script goes to a fresh frame, as every render did before.
    const fresh = await pixelsOf(`${design}<script></script>`);
    expect(reused.info).toEqual(fresh.info);
    expect(reused.data.equals(fresh.data)).toBe(true);
  });

  it('shows nothing of the last script-free document in the next, nor of a scripted one', async () => {
    expect(await centreOf('<div style="width:100px;height:50px;background:#00ff00"></div>')).toEqual(GREEN);
    expect(await centreOf('<p>white</p>')).toEqual([255, 255, 255]);
    expect(await centreOf('<script>document.body.style.background = "#00ff00"</script>')).toEqual(GREEN);
    expect(await centreOf('<p>white</p>')).toEqual([255, 255, 255]);
  });

  it('still runs the event handlers of a document that has them (they make it scripted)', async () => {
    expect(await centreOf('<img src="data:," onerror="document.body.style.background = \'#00ff00\'">')).toEqual(GREEN);
  });

  it('fetches the images of a script-free document again for each render: an image changed since shows changed', async () => {
    const body = `<img src="${origin}/swatch.png" style="display:block;width:100px;height:50px">`;
    swatch = greenPng;
    expect(await centreOf(body)).toEqual(GREEN);
    swatch = redPng;
    expect(await centreOf(body)).toEqual([255, 0, 0]);
    // The frame whose document fetched went with the reset; a document that fetches nothing keeps the next one.
    expect((await hostFrames()).frames).toEqual([]);
  });
});

const run = promisify(execFile);

const pagedOf = (body: string, title = 'Printed in place'): RenderDocument => ({
  html: `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title><style>html,body{margin:0;background:#fff}</style></head><body>${body}</body></html>`,
  width: 400,
  height: 300,
  scaleFactor: 1,
  waitTime: 0,
  paged: true,
});

const print = async (body: string) => (await engine.render(pagedOf(body), { tenant: 'org-a', format: 'pdf', quality: 100, crop: null })).content;

/** What poppler reads of a PDF: its fields, its text, and the colour at the centre of its first page. */
const readPdf = async (pdf: Buffer) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'print-in-place-'));
  try {
    const file = path.join(dir, 'doc.pdf');
    await writeFile(file, pdf);
    const info = await pdfinfo(file);
    const { stdout: text } = await run('pdftotext', [file, '-']);
    const { stdout: png } = await run('pdftoppm', ['-png', '-r', '72', '-singlefile', file], { encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 });
    const { data, info: image } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const at = (Math.floor(image.height / 2) * image.width + Math.floor(image.width / 2)) * 3;
    return { info, text, centre: [data[at], data[at + 1], data[at + 2]] };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

/** The main frame's document: its loader changes with every navigation, and not with a document written in place. */
/** Rasterized, a PDF's colours may be a step off the source's. */
const near = (rgb: readonly (number | undefined)[], expected: readonly number[]) => rgb.every((channel, i) => Math.abs((channel ?? -255) - expected[i]!) <= 4);

const mainLoader = () =>
  pool.withPage(async (_page, cdp) => (await cdp.send('Page.getFrameTree')).frameTree.frame.loaderId, { tenant: 'org-a', deadlineMs: 10_000 });

describe("a paged PDF printed from the host's own document", () => {
  it('prints a script-free document without navigating, with its title, tags and outline, and leaves the host as it was', async () => {
    await pixelsOf('<p>warm</p>');
    const before = await mainLoader();
    const pdf = await print('<h1>Heading</h1><p>Printed without a navigation.</p>');
    expect(await mainLoader()).toBe(before);
    const { info, text } = await readPdf(pdf);
    expect(info).toMatchObject({ Title: 'Printed in place', Tagged: 'yes', Pages: '1' });
    expect(text).toContain('Printed without a navigation.');
    const catalog = (await PDFDocument.load(pdf)).catalog;
    expect(catalog.lookup(PDFName.of('Outlines'), PDFDict).lookup(PDFName.of('First'), PDFDict)).toBeInstanceOf(PDFDict);
    // The host is back: a design renders in its frames, with nothing of the printed document.
    expect(await centreOf('<div style="width:100px;height:50px;background:#00ff00"></div>')).toEqual(GREEN);
    expect(await centreOf('<p>white</p>')).toEqual([255, 255, 255]);
    expect((await hostFrames()).frames).toEqual([{ sandbox: 'allow-same-origin', body: '' }]);
  });

  it('runs no script in the page while a document is written in place, even one the markup check would have missed', async () => {
    const title = await pool.withPage(
      async (page, cdp) => {
        await loadTemplateForPrint(page, cdp, pagedOf('<p>quiet</p>').html, 5_000);
        // Added after the check, from a world of the test's own: script elements and handlers run in the page's world.
        const { frameTree } = await cdp.send('Page.getFrameTree');
        const { executionContextId } = await cdp.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: 'smuggler' });
        await cdp.send('Runtime.evaluate', {
          contextId: executionContextId,
          expression: `const script = document.createElement('script');
            script.textContent = 'document.title = "a script ran"';
            document.head.append(script);
            const image = document.createElement('img');
            image.setAttribute('onerror', 'document.title = "a handler ran"');
            image.src = 'data:,';
            document.body.append(image);`,
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
        return (await cdp.send('Runtime.evaluate', { expression: 'document.title', returnByValue: true })).result.value as unknown;
      },
      { tenant: 'org-a', deadlineMs: 10_000 },
    );
    expect(title).toBe('Printed in place');
  });

  it('turns scripting back on for the renders after it, and navigates for a document with scripts', async () => {
    await print('<p>no scripts here</p>');
    expect(await centreOf('<script>document.body.style.background = "#00ff00"</script>')).toEqual(GREEN);
    const scripted = await readPdf(await print('<p id="p">static</p><script>document.getElementById("p").textContent = "written by the script"</script>'));
    expect(scripted.text).toContain('written by the script');
    expect(scripted.info.Title).toBe('Printed in place');
    const after = await readPdf(await print('<p>script-free again</p>'));
    expect(after.text).toContain('script-free again');
    expect(after.text).not.toContain('written by the script');
  });

  it('fetches the images of a document printed in place again for each print: an image changed since prints changed', async () => {
    const body = `<img src="${origin}/swatch.png" style="display:block;width:400px;height:300px">`;
    swatch = greenPng;
    expect(near((await readPdf(await print(body))).centre, GREEN)).toBe(true);
    swatch = redPng;
    expect(near((await readPdf(await print(body))).centre, [255, 0, 0])).toBe(true);
    swatch = greenPng;
    expect(await centreOf(`<img src="${origin}/swatch.png" style="display:block;width:100px;height:50px">`)).toEqual(GREEN);
  });
});
