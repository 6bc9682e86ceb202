import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CaptureSpec } from '../../domain/renders/capture-events.js';
import { DomainError } from '../../domain/shared/errors.js';
import { createBrowserPool, type BrowserPool } from '../../infrastructure/rendering/browser-pool.js';
import { createChromiumRenderEngine } from '../../infrastructure/rendering/chromium-render-engine.js';
import { startEgressProxy } from '../../infrastructure/rendering/egress-proxy.js';
import { createHostPolicy } from '../../infrastructure/rendering/network-guard.js';
import { createPageCapturer } from '../../infrastructure/rendering/page-capture.js';
import { prepareRenderPage } from '../../infrastructure/rendering/page-confinement.js';
import { prepareTemplateHost } from '../../infrastructure/rendering/template-document.js';

/*
 * Captures on the pool's warm pages, set up as a render worker sets them up (egress proxy, network
 * guard, confinement, template host reset): a page left by a capture stays with its organization and
 * its site, its loading stopped and its document frozen, and nothing it holds reaches another
 * organization's capture.
 */

const logger = pino({ level: 'silent' });

const html = (body: string, background = '#00ff00') =>
  `<!doctype html><html><head><style>html,body{margin:0;background:${background}}</style></head><body>${body}</body></html>`;

/** Leaves state everywhere a page can: cookies, local and session storage, IndexedDB, window.name. */
const LEAVE = html(`<script>
  document.cookie = 'left=1; max-age=3600';
  localStorage.setItem('left', '1');
  sessionStorage.setItem('left', '1');
  window.name = 'left';
  indexedDB.open('left', 1).onupgradeneeded = (event) => event.target.result.createObjectStore('left');
</script>`);

/** Red when it finds anything LEAVE left (IndexedDB is looked up asynchronously: the capture waits for it), green otherwise. */
const PROBE = html(`<script>
  const found = [];
  if (document.cookie.includes('left=1')) found.push('cookie');
  if (localStorage.getItem('left')) found.push('localStorage');
  if (sessionStorage.getItem('left')) found.push('sessionStorage');
  if (window.name === 'left') found.push('window.name');
  const paint = () => { document.documentElement.style.background = found.length > 0 ? '#ff0000' : '#00ff00'; };
  indexedDB.databases().then((dbs) => { if (dbs.some((db) => db.name === 'left')) found.push('indexedDB'); paint(); }, paint);
  paint();
</script>`, '#0000ff');

const RED = [255, 0, 0];
const GREEN = [0, 255, 0];

let pages: Server;
let origin: string;
let secret: Server;
let secretUrl: string;
let secretHits = 0;
/** Requests of /tick, which a page keeps sending while its document lives. */
let ticks = 0;
let pool: BrowserPool;
let closeProxy: () => Promise<void>;

const PAGES: Record<string, string> = {
  '/leave': LEAVE,
  '/probe': PROBE,
  '/plain': html('<div style="width:10px;height:10px;background:#0000ff"></div>'),
  // Keeps asking for /tick for as long as it is the page's document.
  '/ticking': html(`<script>setInterval(() => fetch('/tick?' + Math.random()).catch(() => {}), 20);</script>`),
  // Asks to be kept: a beforeunload handler, which would stall a navigation if it were asked.
  '/clingy': html(`<script>addEventListener('beforeunload', (event) => { event.preventDefault(); event.returnValue = 'stay'; });</script>`),
  '/image-via-private-redirect': html('<img src="/redirect-private" width="10" height="10">'),
};

const listen = async (server: Server, host: string) => {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return `http://${host}:${(server.address() as AddressInfo).port}`;
};

const until = async (condition: () => boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const screenshotOf = (path: string, size = 40, waitTime = 0): CaptureSpec => ({
  kind: 'screenshot',
  url: `${origin}${path}`,
  width: size,
  height: size,
  waitTime,
  expires: null,
  pdfFormat: null,
  fileName: 'capture.png',
});

const colourAt = async (png: Buffer, x: number, y: number) => {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const offset = (y * info.width + x) * info.channels;
  return [...data.subarray(offset, offset + 3)];
};

beforeAll(async () => {
  pages = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    if (path === '/tick') {
      ticks++;
      return void response.end('ok');
    }
    if (path === '/redirect-private') {
      response.writeHead(302, { location: `${secretUrl}/metadata` });
      return void response.end();
    }
    const page = PAGES[path];
    if (!page) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(page);
  });
  secret = createServer((_request, response) => {
    secretHits++;
    response.end('secret');
  });
  origin = await listen(pages, '127.0.0.1');
  secretUrl = await listen(secret, '127.0.0.2');
  const hostPolicy = createHostPolicy({ allowedPrivateHosts: ['127.0.0.1'] });
  const egress = await startEgressProxy({ policy: hostPolicy, logger });
  closeProxy = egress.close;
  // One page per browser: every capture and render of an organization goes through the same page.
  pool = createBrowserPool({
    browsers: 1,
    pagesPerBrowser: 1,
    tenantShare: 1,
    logger,
    preparePage: prepareRenderPage(hostPolicy, { answer: async () => null }),
    resetPage: prepareTemplateHost,
    extraArgs: egress.chromiumArgs,
  });
  await pool.warmUp();
}, 60_000);

// A page is tidied after its answer, and holds its slot until then.
beforeEach(() => until(() => pool.stats().inFlight === 0));

afterAll(async () => {
  await pool?.close();
  await closeProxy?.();
  pages?.close();
  secret?.close();
});

const capturer = () => createPageCapturer({ pool, navigationTimeoutMs: 5_000, captureTimeoutMs: 5_000, maxPdfPages: 10 });

describe('captures on warm pages', () => {
  it('captures a PNG of exactly the requested size, the page as it is drawn', async () => {
    const shot = await capturer().capture(screenshotOf('/plain', 64), 'org-a');
    expect(shot.contentType).toBe('image/png');
    expect([shot.width, shot.height]).toEqual([64, 64]);
    const metadata = await sharp(shot.content).metadata();
    expect([metadata.format, metadata.width, metadata.height]).toEqual(['png', 64, 64]);
    expect(await colourAt(shot.content, 0, 0)).toEqual([0, 0, 255]);
    expect(await colourAt(shot.content, 63, 63)).toEqual(GREEN);
  });

  it("never lets another organization's capture see what a capture left, and keeps the organization's own, as before", async () => {
    await capturer().capture(screenshotOf('/leave', 40, 200), 'org-a');
    expect(await colourAt((await capturer().capture(screenshotOf('/probe', 40, 200), 'org-b')).content, 20, 20)).toEqual(GREEN);
    // The organization's own pages share its browser context, cookies and storage included (as template renders do).
    expect(await colourAt((await capturer().capture(screenshotOf('/probe', 40, 200), 'org-a')).content, 20, 20)).toEqual(RED);
    expect(await colourAt((await capturer().capture(screenshotOf('/probe', 40, 200), 'org-b')).content, 20, 20)).toEqual(GREEN);
  });

  it('stops what a captured page still runs once it is captured', async () => {
    await capturer().capture(screenshotOf('/ticking', 40, 200), 'org-a');
    // The page ticked while it was captured: on a busy machine its requests may still be on their way.
    await until(() => ticks > 0);
    await until(() => pool.stats().inFlight === 0);
    // Requests the page sent before it was frozen may still arrive on a busy machine: once a quiet
    // spell comes (a page still ticking every 20 ms never has one), no request may follow it.
    const quiet = async () => {
      for (const started = Date.now(); Date.now() - started < 10_000; ) {
        const seen = ticks;
        await new Promise((resolve) => setTimeout(resolve, 300));
        if (ticks === seen) return true;
      }
      return false;
    };
    expect(await quiet()).toBe(true);
    const after = ticks;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(ticks).toBe(after);
  });

  it('captures the next page after one that asks to be kept (beforeunload)', async () => {
    await capturer().capture(screenshotOf('/clingy'), 'org-a');
    const shot = await capturer().capture(screenshotOf('/plain'), 'org-a');
    expect(await colourAt(shot.content, 39, 39)).toEqual(GREEN);
  });

  it('keeps the network guard on a reused page: a redirect to a private address is refused and never reached', async () => {
    await capturer().capture(screenshotOf('/plain'), 'org-a');
    const hitsBefore = secretHits;
    const shot = await capturer().capture(screenshotOf('/image-via-private-redirect'), 'org-a');
    expect(await colourAt(shot.content, 39, 39)).toEqual(GREEN);
    expect(secretHits).toBe(hitsBefore);
    const refused = capturer().capture({ ...screenshotOf('/plain'), url: `${secretUrl}/` }, 'org-a');
    await expect(refused).rejects.toBeInstanceOf(DomainError);
    expect(secretHits).toBe(hitsBefore);
  });

  it('renders a template on the page a capture used, and captures again after the render', async () => {
    const engine = createChromiumRenderEngine({ pool, loadTimeoutMs: 5_000, captureTimeoutMs: 5_000, maxPdfPages: 10 });
    await capturer().capture(screenshotOf('/plain'), 'org-a');
    const render = await engine.render(
      { html: html('', '#ff0000'), width: 30, height: 30, scaleFactor: 1, waitTime: 0 },
      { format: 'png', quality: 100, crop: null, tenant: 'org-a' },
    );
    expect(await colourAt(render.content, 15, 15)).toEqual(RED);
    const shot = await capturer().capture(screenshotOf('/plain'), 'org-a');
    expect(await colourAt(shot.content, 39, 39)).toEqual(GREEN);
  });

  it('answers that a page did not answer, whatever the page showed before', async () => {
    const silent = createServer(() => {});
    const silentUrl = await listen(silent, '127.0.0.1');
    try {
      const fast = createPageCapturer({ pool, navigationTimeoutMs: 1_000, captureTimeoutMs: 5_000, maxPdfPages: 10 });
      await expect(fast.capture({ ...screenshotOf('/plain'), url: `${silentUrl}/` }, 'org-a')).rejects.toThrow(/did not answer within 1000 ms/);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('prints a PDF of a page on the same warm page as its screenshots', async () => {
    await capturer().capture(screenshotOf('/plain'), 'org-a');
    const pdf = await capturer().capture({ ...screenshotOf('/plain'), kind: 'pdf', width: 559, height: 794, pdfFormat: 'A5', fileName: 'capture.pdf' }, 'org-a');
    expect(pdf.contentType).toBe('application/pdf');
    expect(pdf.content.subarray(0, 5).toString()).toBe('%PDF-');
  });
});
