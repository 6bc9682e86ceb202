import { pino } from 'pino';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderDocument } from '../../application/ports/render-engine.js';
import { DomainError } from '../../domain/shared/errors.js';
import { createBrowserPool, type BrowserPool } from '../../infrastructure/rendering/browser-pool.js';
import { createChromiumRenderEngine } from '../../infrastructure/rendering/chromium-render-engine.js';
import { createHostPolicy } from '../../infrastructure/rendering/network-guard.js';
import { NO_ORG_ASSETS } from '../../infrastructure/rendering/org-assets.js';
import { prepareRenderPage } from '../../infrastructure/rendering/page-confinement.js';
import { prepareTemplateHost } from '../../infrastructure/rendering/template-document.js';

/** The engine's own bound on loading: a stuck page must be told long before it. */
const LOAD_TIMEOUT_MS = 15_000;

let pool: BrowserPool;
let engine: ReturnType<typeof createChromiumRenderEngine>;

beforeAll(async () => {
  pool = createBrowserPool({
    browsers: 1,
    pagesPerBrowser: 2,
    logger: pino({ level: 'silent' }),
    preparePage: prepareRenderPage(createHostPolicy({ allowedPrivateHosts: [] }), NO_ORG_ASSETS),
    resetPage: prepareTemplateHost,
  });
  engine = createChromiumRenderEngine({ pool, loadTimeoutMs: LOAD_TIMEOUT_MS, captureTimeoutMs: 10_000, maxPdfPages: 10 });
});
afterAll(async () => {
  await pool?.close();
});

const documentOf = (body: string, waitTime: number): RenderDocument => ({
  html: `<!doctype html><html><head><style>html,body{margin:0;width:100px;height:50px}</style></head><body>${body}</body></html>`,
  width: 100,
  height: 50,
  scaleFactor: 1,
  waitTime,
});

/** `waitTime` holds the capture back while the page's scripts go on working after its load. */
const render = (body: string, waitTime = 0) => engine.render(documentOf(body, waitTime), { tenant: 'org-a', format: 'png', quality: 100, crop: null });

const centre = async (png: Buffer) => {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (Math.floor(info.height / 2) * info.width + Math.floor(info.width / 2)) * 3;
  return [data[at], data[at + 1], data[at + 2]];
};

/** Spins the page's one thread for `ms` without a pause. */
const spin = (ms: number) => `const until = performance.now() + ${ms}; while (performance.now() < until) {}`;
const GREEN = '<script>onload = () => { document.body.style.background = "#00ff00"; }</script>';

describe('a page whose scripts never yield', () => {
  it('fails as the request\'s fault long before the load bound, and the next render on the pool is fine', async () => {
    // A warm pool: starting the browser is not what is timed.
    expect(await centre((await render(GREEN)).content)).toEqual([0, 255, 0]);
    const started = performance.now();
    const failure = await render('<script>for (;;) {}</script>').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DomainError);
    expect((failure as DomainError).code).toBe('validation');
    // The watch on the page's thread ended it (its own reason), not the load bound, whatever the machine's speed.
    expect((failure as DomainError).message).toMatch(/busy without a pause/);
    expect(performance.now() - started).toBeLessThan(LOAD_TIMEOUT_MS);
    expect(await centre((await render(GREEN)).content)).toEqual([0, 255, 0]);
  });

  it('is told apart from one that works hard but yields', async () => {
    const yielding = `<script>
      let left = 6;
      const chunk = () => { ${spin(500)}; if (--left > 0) setTimeout(chunk, 0); else document.body.style.background = "#00ff00"; };
      onload = () => setTimeout(chunk, 0);
    </script>`;
    // Three seconds of work after the load, in half-second pieces, all while the page is watched.
    expect(await centre((await render(yielding, 4_000)).content)).toEqual([0, 255, 0]);
    // One long stretch of work that still ends: 1.5 s of layout or script at once.
    expect(await centre((await render(`<script>${spin(1500)}</script>${GREEN}`)).content)).toEqual([0, 255, 0]);
  });
});
