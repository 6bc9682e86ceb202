import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FULL_PAGE_MAX_HEIGHT, type CaptureSpec } from '../../domain/renders/capture-events.js';
import { createBrowserPool, type BrowserPool } from '../../infrastructure/rendering/browser-pool.js';
import { startEgressProxy } from '../../infrastructure/rendering/egress-proxy.js';
import { createHostPolicy } from '../../infrastructure/rendering/network-guard.js';
import { createPageCapturer } from '../../infrastructure/rendering/page-capture.js';
import { prepareRenderPage } from '../../infrastructure/rendering/page-confinement.js';
import { prepareTemplateHost } from '../../infrastructure/rendering/template-document.js';

/*
 * The capture options of issue 42 on real Chromium, set up as a render worker sets it up (egress
 * proxy, network guard, confinement): a local page with images far below the fold (loading=lazy and
 * an IntersectionObserver), a cookie-consent bar and an ad slot, checked pixel by pixel.
 */

const logger = pino({ level: 'silent' });

const BANNER = [255, 0, 0];
const AD = [255, 0, 255];
const LAZY = [0, 0, 255];
const OBSERVED = [0, 160, 0];
const WHITE = [255, 255, 255];

/** Where the images below the fold are, in CSS pixels from the top of the page. */
const LAZY_TOPS = [3000, 6000];
const OBSERVED_TOP = 9000;
const PAGE_HEIGHT = 9600;

const LAZY_PAGE = `<!doctype html><html><head><style>
  html, body { margin: 0; background: #fff; }
  .tile { position: absolute; left: 50px; width: 200px; height: 200px; display: block; }
  #gdpr-cookie-consent-bar { position: fixed; left: 0; right: 0; bottom: 0; height: 80px; background: rgb(255, 0, 0); z-index: 10; }
</style></head><body style="height:${PAGE_HEIGHT}px; position: relative">
  <div class="ad-slot" style="position:absolute; left: 0; top: 0; width: 300px; height: 100px; background: rgb(255, 0, 255)"><img src="/ads/banner.png" width="300" height="100"></div>
  ${LAZY_TOPS.map((top) => `<img class="tile" loading="lazy" src="/lazy.png?top=${top}" style="top:${top}px">`).join('')}
  <img class="tile" id="observed" data-src="/observed.png" style="top:${OBSERVED_TOP}px">
  <div class="cookie-banner" style="position: fixed; right: 0; top: 0; width: 120px; height: 60px; background: rgb(255, 0, 0)">We use cookies</div>
  <div id="gdpr-cookie-consent-bar">
    <button id="cookie_action_accept">Accept</button>
    <button id="cookie_action_reject" onclick="document.cookie = 'wpl_viewed_cookie=no'; fetch('/rejected'); this.parentNode.remove()">Reject</button>
  </div>
  <script>
    new IntersectionObserver((entries, observer) => {
      for (const entry of entries) if (entry.isIntersecting) { entry.target.src = entry.target.dataset.src; observer.disconnect(); }
    }).observe(document.getElementById('observed'));
  </script>
</body></html>`;

/** Grows by a screen whenever the reader nears its bottom: an endless feed. */
const ENDLESS_PAGE = `<!doctype html><html><body style="margin:0">
  <div id="feed"><div style="height:1000px;background:#ccc"></div></div>
  <script>
    const feed = document.getElementById('feed');
    const grow = () => { while (document.documentElement.scrollHeight - (scrollY + innerHeight) < 2000) { const d = document.createElement('div'); d.style.height = '1000px'; d.style.background = feed.children.length % 2 ? '#ccc' : '#eee'; feed.appendChild(d); } };
    addEventListener('scroll', grow); grow();
  </script>
</body></html>`;

const BOX_PAGE = `<!doctype html><html><body style="margin:0; background: rgb(0, 255, 0)">
  <div id="target" style="position:absolute; left: 37px; top: 53px; width: 120px; height: 80px; background: rgb(0, 0, 255)"></div>
</body></html>`;

const SCHEME_PAGE = `<!doctype html><html><head><style>
  html, body { margin: 0; background: #fff; }
  @media (prefers-color-scheme: dark) { html, body { background: #000; } }
</style></head><body></body></html>`;

let server: Server;
let origin: string;
let pool: BrowserPool;
let closeProxy: () => Promise<void>;
const hits: Record<string, number> = {};
let tile: Buffer;
let observedTile: Buffer;
let adBanner: Buffer;

const solid = (rgb: number[], width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: rgb[0]!, g: rgb[1]!, b: rgb[2]! } } }).png().toBuffer();

const PAGES: Record<string, string> = { '/lazy': LAZY_PAGE, '/endless': ENDLESS_PAGE, '/box': BOX_PAGE, '/scheme': SCHEME_PAGE };

const until = async (condition: () => boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

beforeAll(async () => {
  [tile, observedTile, adBanner] = await Promise.all([solid(LAZY, 200, 200), solid(OBSERVED, 200, 200), solid(AD, 300, 100)]);
  server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    hits[path] = (hits[path] ?? 0) + 1;
    const image = path === '/lazy.png' ? tile : path === '/observed.png' ? observedTile : path === '/ads/banner.png' ? adBanner : undefined;
    if (image) {
      // As a network would: images arrive a little later.
      setTimeout(() => response.writeHead(200, { 'content-type': 'image/png' }).end(image), 100);
      return;
    }
    const page = PAGES[path];
    if (!page) return void response.writeHead(path === '/rejected' ? 204 : 404).end();
    response.writeHead(200, { 'content-type': 'text/html' }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const hostPolicy = createHostPolicy({ allowedPrivateHosts: ['127.0.0.1'] });
  const egress = await startEgressProxy({ policy: hostPolicy, logger });
  closeProxy = egress.close;
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

beforeEach(() => until(() => pool.stats().inFlight === 0));

afterAll(async () => {
  await pool?.close();
  await closeProxy?.();
  server?.close();
});

const capturer = () => createPageCapturer({ pool, navigationTimeoutMs: 5_000, captureTimeoutMs: 5_000, maxPdfPages: 10 });

const shotOf = (path: string, extras: Partial<CaptureSpec> = {}): CaptureSpec => ({
  kind: 'screenshot',
  url: `${origin}${path}`,
  width: 400,
  height: 300,
  waitTime: 0,
  expires: null,
  pdfFormat: null,
  fileName: 'capture.png',
  ...extras,
});

const pixelsOf = async (image: Buffer) => {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (x: number, y: number) => {
    const offset = (y * info.width + x) * info.channels;
    return [...data.subarray(offset, offset + 3)];
  };
  /** How many pixels are within `tolerance` of a colour. */
  const count = (rgb: number[], tolerance = 8) => {
    let n = 0;
    for (let offset = 0; offset < data.length; offset += info.channels) {
      if (Math.abs(data[offset]! - rgb[0]!) <= tolerance && Math.abs(data[offset + 1]! - rgb[1]!) <= tolerance && Math.abs(data[offset + 2]! - rgb[2]!) <= tolerance) n++;
    }
    return n;
  };
  return { width: info.width, height: info.height, at, count };
};

describe('capture options on real Chromium', () => {
  it('fullPage + scrollPage draws every image below the fold; blockAds leaves no banner or ad pixels', async () => {
    const before = { ad: hits['/ads/banner.png'] ?? 0, rejected: hits['/rejected'] ?? 0 };
    const shot = await capturer().capture(shotOf('/lazy', { fullPage: true, scrollPage: true, blockAds: true }), 'org-a');
    const pixels = await pixelsOf(shot.content);
    expect([shot.width, shot.height, pixels.width, pixels.height]).toEqual([400, PAGE_HEIGHT, 400, PAGE_HEIGHT]);
    for (const top of LAZY_TOPS) expect(pixels.at(150, top + 100)).toEqual(LAZY);
    expect(pixels.at(150, OBSERVED_TOP + 100)).toEqual(OBSERVED);
    expect(pixels.count(BANNER)).toBe(0);
    expect(pixels.count(AD)).toBe(0);
    // The ad's image was refused before it left the browser.
    expect(hits['/ads/banner.png'] ?? 0).toBe(before.ad);
    // autoconsent recognised the consent bar and answered it "reject".
    expect(hits['/rejected'] ?? 0).toBe(before.rejected + 1);
  });

  it('without blockAds the same page shows its banner and its ad, and without scrollPage the observed image is not drawn', async () => {
    const shot = await capturer().capture(shotOf('/lazy', { fullPage: true }), 'org-a');
    const pixels = await pixelsOf(shot.content);
    expect(pixels.count(BANNER)).toBeGreaterThan(0);
    expect(pixels.count(AD)).toBeGreaterThan(0);
    expect(pixels.at(150, OBSERVED_TOP + 100)).toEqual(WHITE);
  });

  it('captures exactly the box of the element a selector names, at the scale asked', async () => {
    const shot = await capturer().capture(shotOf('/box', { selector: '#target' }), 'org-a');
    const pixels = await pixelsOf(shot.content);
    expect([shot.width, shot.height, pixels.width, pixels.height]).toEqual([120, 80, 120, 80]);
    expect(pixels.count([0, 0, 255], 0)).toBe(120 * 80);
    const double = await capturer().capture(shotOf('/box', { selector: '#target', deviceScaleFactor: 2 }), 'org-a');
    const doubled = await pixelsOf(double.content);
    expect([doubled.width, doubled.height]).toEqual([240, 160]);
    expect(doubled.count([0, 0, 255], 0)).toBe(240 * 160);
  });

  it('answers a 400 naming a selector that matches nothing', async () => {
    await expect(capturer().capture(shotOf('/box', { selector: '#missing' }), 'org-a')).rejects.toThrow(/No element matched selector "#missing"/);
    const fast = createPageCapturer({ pool, navigationTimeoutMs: 1_000, captureTimeoutMs: 5_000, maxPdfPages: 10 });
    await expect(fast.capture(shotOf('/box', { waitForSelector: '#missing' }), 'org-a')).rejects.toThrow(/within 1000 ms/);
    const found = await capturer().capture(shotOf('/box', { waitForSelector: '#target' }), 'org-a');
    expect(found.width).toBe(400);
  });

  it('colorScheme dark changes a page that styles prefers-color-scheme, and the next capture sees light again', async () => {
    const dark = await pixelsOf((await capturer().capture(shotOf('/scheme', { colorScheme: 'dark' }), 'org-a')).content);
    expect(dark.at(200, 150)).toEqual([0, 0, 0]);
    const plain = await pixelsOf((await capturer().capture(shotOf('/scheme'), 'org-a')).content);
    expect(plain.at(200, 150)).toEqual(WHITE);
  });

  it('stores jpeg and webp at the quality asked', async () => {
    const jpeg = await capturer().capture(shotOf('/scheme', { format: 'jpeg', quality: 50 }), 'org-a');
    expect(jpeg.contentType).toBe('image/jpeg');
    expect(await sharp(jpeg.content).metadata()).toMatchObject({ format: 'jpeg', width: 400, height: 300 });
    const webp = await capturer().capture(shotOf('/scheme', { format: 'webp', quality: 90, deviceScaleFactor: 1.5 }), 'org-a');
    expect(webp.contentType).toBe('image/webp');
    expect(await sharp(webp.content).metadata()).toMatchObject({ format: 'webp', width: 600, height: 450 });
  });

  it('prints a PDF with the page options', async () => {
    // The page is 9,600 px long: 13 A5 pages.
    const printer = createPageCapturer({ pool, navigationTimeoutMs: 5_000, captureTimeoutMs: 5_000, maxPdfPages: 50 });
    const pdf = await printer.capture(
      { ...shotOf('/lazy', { scrollPage: true, blockAds: true, colorScheme: 'dark', waitForSelector: '#observed' }), kind: 'pdf', width: 559, height: 794, pdfFormat: 'A5', fileName: 'capture.pdf' },
      'org-a',
    );
    expect(pdf.content.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('stops a page that scrolls forever at the documented height, within its deadline', async () => {
    const started = Date.now();
    const shot = await capturer().capture(shotOf('/endless', { fullPage: true, scrollPage: true }), 'org-a');
    expect([shot.width, shot.height]).toEqual([400, FULL_PAGE_MAX_HEIGHT]);
    expect((await sharp(shot.content).metadata()).height).toBe(FULL_PAGE_MAX_HEIGHT);
    // navigation + capture + scroll bounds (5 s each) at most.
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
