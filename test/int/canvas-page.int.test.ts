import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import type { Page } from 'puppeteer-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComponentDocument } from '../../domain/templates/components/component-document.js';
import { resolveValues } from '../../domain/templates/components/resolve-values.js';
import { createHtmlCanvasRenderer } from '../../infrastructure/canvas/html-canvas-renderer.js';
import { createBrowserPool, type BrowserPool } from '../../infrastructure/rendering/browser-pool.js';
import { createChromiumRenderEngine } from '../../infrastructure/rendering/chromium-render-engine.js';
import { createHostPolicy } from '../../infrastructure/rendering/network-guard.js';
import { prepareRenderPage } from '../../infrastructure/rendering/page-confinement.js';
import { NO_ORG_ASSETS } from '../../infrastructure/rendering/org-assets.js';

const renderer = createHtmlCanvasRenderer();
const page = { width: 200, height: 50 };
const pageOf = (document: ComponentDocument, data: Record<string, unknown> = {}) => renderer.toHtml(document, resolveValues(document, data), page);

let pool: BrowserPool;
let server: Server;
let imageUrl: string;

beforeAll(async () => {
  pool = createBrowserPool({ browsers: 1, pagesPerBrowser: 2, logger: pino({ level: 'silent' }) });
  const olive = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#808000' } }).png().toBuffer();
  server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'image/png' }).end(olive));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  imageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/olive.png`;
});
afterAll(async () => {
  await pool?.close();
  await new Promise((resolve) => server?.close(resolve));
});

const rgbAt = async (png: Uint8Array, x: number, y: number) => {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const offset = (y * info.width + x) * info.channels;
  return [...data.subarray(offset, offset + 3)];
};

const RED = [255, 0, 0];
const WHITE = [255, 255, 255];

describe('the canvas page in Chromium', () => {
  it('poses animated components for the instant __seekFrame names, forwards and back', async () => {
    const html = await pageOf({
      components: [
        {
          id: 'box',
          type: 'RECTANGLE',
          x: 0,
          y: 0,
          width: 40,
          height: 50,
          fill: '#ff0000',
          animation: { enter: { offset: 0, duration: 1000, easing: 'ease-in-out', from: { x: 160 } }, exit: { offset: 2000, duration: 0, to: {} } },
        },
      ],
    });
    const frames = await pool.withPage(async (tab: Page) => {
      await tab.setViewport(page);
      await tab.setContent(html, { waitUntil: 'load' });
      const capture = async (time: number | null) => {
        if (time !== null) await tab.evaluate((t) => (globalThis as unknown as { __seekFrame(t: number): void }).__seekFrame(t), time);
        return tab.screenshot({ type: 'png' });
      };
      return { loaded: await capture(null), end: await capture(1000), gone: await capture(2000), start: await capture(0) };
    }, { tenant: 'org-canvas', deadlineMs: 20_000 });
    // As loaded, the page shows t = 0: the box is at its `from` position.
    expect(await rgbAt(frames.loaded, 180, 25)).toEqual(RED);
    expect(await rgbAt(frames.loaded, 20, 25)).toEqual(WHITE);
    expect(await rgbAt(frames.end, 20, 25)).toEqual(RED);
    expect(await rgbAt(frames.end, 180, 25)).toEqual(WHITE);
    expect(await rgbAt(frames.gone, 20, 25)).toEqual(WHITE);
    expect(Buffer.from(frames.start).equals(Buffer.from(frames.loaded))).toBe(true);
  });

  it('fetches images through the network guard: a private host shows only when allowed', async () => {
    const html = await pageOf({ components: [{ id: 'photo', type: 'IMAGE', x: 0, y: 0, width: 50, height: 50, src: imageUrl }] });
    const capture = async (allowedPrivateHosts: string[]) => {
      // The guard is set up once per page by the pool, so each policy has a pool of its own.
      const guarded = createBrowserPool({ browsers: 1, pagesPerBrowser: 1, logger: pino({ level: 'silent' }), preparePage: prepareRenderPage(createHostPolicy({ allowedPrivateHosts }), NO_ORG_ASSETS) });
      try {
        const engine = createChromiumRenderEngine({ pool: guarded, loadTimeoutMs: 5_000, captureTimeoutMs: 5_000, maxPdfPages: 200 });
        const file = await engine.render({ html, ...page, scaleFactor: 1, waitTime: 0 }, { tenant: 'org-canvas', format: 'png', quality: 100, crop: null });
        return rgbAt(file.content, 25, 25);
      } finally {
        await guarded.close();
      }
    };
    expect(await capture([])).toEqual(WHITE);
    expect(await capture(['127.0.0.1'])).toEqual([128, 128, 0]);
  });
});
