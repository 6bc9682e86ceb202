import type { CDPSession, Frame, HTTPRequest, Page } from 'puppeteer-core';
import type { PageCapturer } from '../../application/ports/page-capture.js';
import type { RenderedFile } from '../../application/ports/render-engine.js';
import sharp from 'sharp';
import {
  CAPTURE_EXTRA_KEYS,
  captureExtrasOf,
  FULL_PAGE_MAX_HEIGHT,
  PDF_FORMATS,
  SCREENSHOT_PIXEL_BUDGET,
  type CaptureExtras,
  type CaptureSpec,
} from '../../domain/renders/capture-events.js';
import { outputContentType } from '../../domain/renders/output-formats.js';
import { validationError } from '../../domain/shared/errors.js';
import type { AdBlocking } from './ad-blocking.js';
import type { BrowserPool } from './browser-pool.js';
import { encodeImage } from './image-encoder.js';
import { fitViewport } from './page-viewport.js';
import { printPdf } from './pdf-pages.js';

export interface PageCaptureOptions {
  readonly pool: BrowserPool;
  /** Bound on reaching the load event; past it the page is captured as far as it got. */
  readonly navigationTimeoutMs: number;
  /** Bound on taking the screenshot or printing the PDF once the page is ready. */
  readonly captureTimeoutMs: number;
  /** The most pages a PDF of a page may have. */
  readonly maxPdfPages: number;
}

/** The extension options a capture may have; a capture with none takes the path captures always took. */
const hasExtras = (spec: CaptureExtras): boolean => CAPTURE_EXTRA_KEYS.some((key) => spec[key] !== undefined);

/**
 * Milliseconds a capture may hold its page at most: every phase's bound, plus the client's wait.
 * waitForSelector waits at most one more navigation bound, scrollPage and blockAds (the consent
 * pop-up's answer) at most one more capture bound each.
 */
const captureLimitMs = (options: Pick<PageCaptureOptions, 'navigationTimeoutMs' | 'captureTimeoutMs'>, spec: CaptureSpec) =>
  options.navigationTimeoutMs +
  spec.waitTime +
  options.captureTimeoutMs +
  (spec.waitForSelector !== undefined ? options.navigationTimeoutMs : 0) +
  (spec.scrollPage ? options.captureTimeoutMs : 0) +
  (spec.blockAds ? options.captureTimeoutMs : 0);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Main-frame navigations the network guard refused (the URL itself, or where it redirected), until
 * `stop`: the page is reused by later captures, which watch for themselves.
 */
const watchRefusedNavigations = (page: Page): { refused: string[]; stop: () => void } => {
  const refused: string[] = [];
  const onFailed = (request: HTTPRequest) => {
    if (request.failure()?.errorText === 'net::ERR_BLOCKED_BY_CLIENT' && request.isNavigationRequest() && request.frame() === page.mainFrame()) {
      refused.push(request.url());
    }
  };
  page.on('requestfailed', onFailed);
  return { refused, stop: () => page.off('requestfailed', onFailed) };
};

/**
 * Goes to the page and waits for its load event, within the navigation bound. A page that answered
 * but never finishes loading (a hanging image, a stream that never ends) is stopped and captured as
 * it stands; one that never answered, could not be reached or led to a refused address is the request's fault.
 */
const navigate = async (page: Page, url: string, timeoutMs: number) => {
  const { refused, stop } = watchRefusedNavigations(page);
  // Whether the page got as far as a document of its own: the page it left may show anything (a frozen capture, a template's host).
  let committed = false;
  const onNavigated = (frame: Frame) => {
    if (frame === page.mainFrame()) committed = true;
  };
  page.on('framenavigated', onNavigated);
  try {
    await page.goto(url, { waitUntil: 'load', timeout: timeoutMs });
  } catch (error) {
    if (refused.length > 0) {
      throw validationError(`The page at ${url} was refused: it leads to ${refused.at(-1)}, a private, loopback or link-local address`, [
        `url: ${url} leads to a blocked address (${refused.at(-1)}); list the host in ALLOWED_PRIVATE_HOSTS to allow it`,
      ]);
    }
    if ((error as Error).name !== 'TimeoutError') throw validationError(`Could not load ${url}: ${(error as Error).message}`);
    if (!committed) throw validationError(`${url} did not answer within ${timeoutMs} ms`);
    // As the browser's stop button: what is still loading is abandoned, so printing (which waits for the load) can go on.
    await page.evaluate('window.stop()');
  } finally {
    page.off('framenavigated', onNavigated);
    stop();
  }
};

/**
 * After a capture the page stays where it is, with its loading stopped and its document frozen: what
 * the captured document still runs (timers, animation frames, requests) stops at once, and the page
 * keeps its renderer process and its document until the next capture replaces it, which costs the
 * next capture of the same site no new renderer, as a browser tab going from page to page (a
 * navigation by the browser, to about:blank or to a template's host, starts a new renderer each
 * time, and the next capture another; even the page's own navigation to about:blank costs a
 * document and a frame). The page stays in its organization's own browser context: what the
 * organization's pages stored is theirs, as for template renders. A page that cannot be frozen in
 * time (a script that never yields) is discarded by the pool.
 */
export const parkCapturePage = async (_page: Page, cdp: CDPSession): Promise<void> => {
  await cdp.send('Page.stopLoading');
  await cdp.send('Page.setWebLifecycleState', { state: 'frozen' });
};

/** Before the page's next render, whichever it is: the frozen document may run again, until it is navigated away. */
export const wakeCapturePage = async (_page: Page, cdp: CDPSession): Promise<void> => {
  await cdp.send('Page.setWebLifecycleState', { state: 'active' });
};

/** Width and height of a PNG from its header (IHDR), or undefined when the bytes are no PNG. */
const pngSize = (png: Buffer): { width: number; height: number } | undefined =>
  png.length >= 24 && png.readUInt32BE(0) === 0x89504e47 && png.toString('latin1', 12, 16) === 'IHDR'
    ? { width: png.readUInt32BE(16), height: png.readUInt32BE(20) }
    : undefined;

const capturePage = async (page: Page, cdp: CDPSession, spec: CaptureSpec, options: PageCaptureOptions): Promise<RenderedFile> => {
  if (spec.kind === 'pdf') {
    const paper = PDF_FORMATS[spec.pdfFormat ?? 'A4'];
    // The client chose the paper: it wins over the page's own @page size. Every page is kept, up to the limit.
    const content = await printPdf(page, cdp, {
      width: `${paper.width}mm`,
      height: `${paper.height}mm`,
      preferCssPageSize: false,
      maxPages: options.maxPdfPages,
      timeoutMs: options.captureTimeoutMs,
    });
    return { content, contentType: outputContentType('pdf'), width: spec.width, height: spec.height };
  }
  // Chromium's own PNG of the viewport, which is the requested size: one round trip, nothing decoded or encoded again here.
  const { data } = await cdp.send('Page.captureScreenshot', { format: 'png', optimizeForSpeed: true, captureBeyondViewport: false });
  const png = Buffer.from(data, 'base64');
  const size = pngSize(png);
  if (size?.width === spec.width && size.height === spec.height) return { content: png, contentType: outputContentType('png'), ...size };
  // Only when the browser returned something else: the crop guarantees the requested size whatever it drew.
  const image = await encodeImage(png, { format: 'png', quality: 100, crop: { width: spec.width, height: spec.height } });
  return { content: image.buffer, contentType: image.contentType, width: image.width, height: image.height };
};

/**
 * Scrolls the page down a viewport at a time, waiting for what each step starts loading, to the bottom
 * (or FULL_PAGE_MAX_HEIGHT, so a page that grows forever stops there) or until `deadline`, then back
 * to the top. Runs in the page's own world: a page may fight it (override scrollTo), and is then captured as it stands.
 */
const scrollThrough = async (page: Page, deadline: number): Promise<void> => {
  const remaining = deadline - Date.now();
  if (remaining <= 0) return;
  // Bounded here too: the page's world is the page's, whose timers may never fire.
  const scrolled = page.evaluate(
    async (maxHeight: number, budgetMs: number) => {
      const end = Date.now() + budgetMs;
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      const step = Math.max(window.innerHeight, 100);
      // Images in or near the viewport still loading (a lazy image further away is not complete either, and is not waited for).
      const pending = () =>
        [...document.images].filter((image) => {
          if (image.complete) return false;
          const rect = image.getBoundingClientRect();
          return rect.bottom > -window.innerHeight && rect.top < 2 * window.innerHeight;
        });
      const settle = async (ms: number) => {
        // A frame or two so observers fire (a page that draws no frames gets 100 ms), then the images that started loading, within `ms`.
        await Promise.race([new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))), pause(100)]);
        const until = Math.min(end, Date.now() + ms);
        while (pending().length > 0 && Date.now() < until) await pause(25);
      };
      let y = 0;
      for (;;) {
        const bottom = Math.min(document.documentElement.scrollHeight, maxHeight);
        if (y + window.innerHeight >= bottom || Date.now() >= end) break;
        y = Math.min(y + step, bottom - window.innerHeight);
        window.scrollTo(0, y);
        await settle(500);
      }
      window.scrollTo(0, 0);
      await settle(Math.max(0, end - Date.now()));
    },
    FULL_PAGE_MAX_HEIGHT,
    remaining,
  );
  await Promise.race([scrolled.catch(() => {}), sleep(remaining + 250)]);
};

/** Waits for an element the client named, within `timeoutMs`: a 400 naming the selector when none comes. */
const waitForElement = async (page: Page, selector: string, timeoutMs: number): Promise<void> => {
  try {
    await page.waitForSelector(selector, { timeout: timeoutMs });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') throw validationError(`No element matched waitForSelector "${selector}" within ${timeoutMs} ms`, [`waitForSelector: nothing matched "${selector}" in time`]);
    throw validationError(`waitForSelector "${selector}" is not a valid CSS selector`, [`waitForSelector: not a valid CSS selector`]);
  }
};

interface Clip {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** The largest CSS height a width may have at a scale within the pixel budget and FULL_PAGE_MAX_HEIGHT. */
export const boundedHeight = (width: number, height: number, scale: number) =>
  Math.max(1, Math.min(height, FULL_PAGE_MAX_HEIGHT, Math.floor(SCREENSHOT_PIXEL_BUDGET / (width * scale * scale))));

/** The part of the page a screenshot with extras draws, in CSS pixels of the document. */
const clipOf = async (page: Page, spec: CaptureSpec, scale: number): Promise<Clip | null> => {
  const { fullPage, selector } = captureExtrasOf(spec);
  if (selector !== null) {
    let box: { x: number; y: number; width: number; height: number } | null;
    try {
      box = await page.evaluate((css: string) => {
        const element = document.querySelector(css);
        if (!element) return null;
        const rect = element.getBoundingClientRect();
        return { x: rect.left + window.scrollX, y: rect.top + window.scrollY, width: rect.width, height: rect.height };
      }, selector);
    } catch {
      throw validationError(`selector "${selector}" is not a valid CSS selector`, ['selector: not a valid CSS selector']);
    }
    if (!box) throw validationError(`No element matched selector "${selector}"`, [`selector: nothing matched "${selector}"`]);
    // Measured in the page's own world, which may lie: only finite numbers make a clip.
    if (![box.x, box.y, box.width, box.height].every(Number.isFinite)) throw validationError(`The element matched by selector "${selector}" has no box to capture`, [`selector: "${selector}" has no box`]);
    const x = Math.max(0, Math.round(box.x));
    const y = Math.max(0, Math.round(box.y));
    const width = Math.round(box.x + box.width) - x;
    const height = Math.round(box.y + box.height) - y;
    if (width < 1 || height < 1) throw validationError(`The element matched by selector "${selector}" has no size to capture`, [`selector: "${selector}" is not drawn`]);
    const boundedWidth = Math.min(width, FULL_PAGE_MAX_HEIGHT);
    return { x, y, width: boundedWidth, height: boundedHeight(boundedWidth, height, scale) };
  }
  if (fullPage) {
    const pageHeight = await page.evaluate(() => Math.max(document.documentElement.scrollHeight, document.body?.scrollHeight ?? 0));
    const height = Number.isFinite(pageHeight) ? Math.max(spec.height, Math.ceil(pageHeight)) : spec.height;
    return { x: 0, y: 0, width: spec.width, height: boundedHeight(spec.width, height, scale) };
  }
  return null;
};

/** The viewport where the page stands, in document coordinates (the top left when the page's world says otherwise than numbers). */
const viewportClip = async (page: Page, spec: CaptureSpec): Promise<Clip> => {
  const at = await page.evaluate(() => ({ x: window.scrollX, y: window.scrollY }));
  const finite = Number.isFinite(at.x) && Number.isFinite(at.y);
  return { x: finite ? Math.max(0, at.x) : 0, y: finite ? Math.max(0, at.y) : 0, width: spec.width, height: spec.height };
};

/**
 * A screenshot with extras: the format asked, at the scale asked, of the viewport, the whole page or
 * one element. The scale is the capture's (Chromium draws the clip again at that scale), not the
 * viewport's: the pool's pages keep their scale 1 between captures and renders.
 */
const captureImage = async (page: Page, cdp: CDPSession, spec: CaptureSpec): Promise<RenderedFile> => {
  const extras = captureExtrasOf(spec);
  const scale = extras.deviceScaleFactor;
  const clip: Clip = (await clipOf(page, spec, scale)) ?? (await viewportClip(page, spec));
  const { data } = await cdp.send('Page.captureScreenshot', {
    format: extras.format,
    ...(extras.format === 'png' ? {} : { quality: extras.quality }),
    optimizeForSpeed: true,
    captureBeyondViewport: true,
    clip: { ...clip, scale },
  });
  const image = Buffer.from(data, 'base64');
  const width = Math.round(clip.width * scale);
  const height = Math.round(clip.height * scale);
  const metadata = await sharp(image).metadata();
  if (metadata.width === width && metadata.height === height) return { content: image, contentType: outputContentType(extras.format), width, height };
  // Only when the browser drew something else (a pixel off by rounding): the exact size, whatever it drew.
  const fitted = sharp(image).resize({ width, height, fit: 'fill' });
  const encoded = extras.format === 'png' ? fitted.png() : extras.format === 'jpeg' ? fitted.flatten({ background: '#ffffff' }).jpeg({ quality: extras.quality }) : fitted.webp({ quality: extras.quality });
  return { content: await encoded.toBuffer(), contentType: outputContentType(extras.format), width, height };
};

/**
 * A test key's capture has TEST drawn across the page, above everything it shows. Built through the
 * DOM rather than as markup, so a page's content security policy cannot refuse its styles.
 */
const drawTestWatermark = (page: Page) =>
  page
    .evaluate(() => {
      const cover = document.createElement('div');
      cover.style.cssText = 'position:fixed;inset:0;z-index:2147483647;pointer-events:none;display:flex;align-items:center;justify-content:center;overflow:hidden';
      const mark = document.createElement('div');
      mark.textContent = 'TEST';
      mark.style.cssText = "transform:rotate(-30deg);font:700 min(28vw,40vh)/1 'DejaVu Sans',sans-serif;letter-spacing:.05em;color:rgba(220,0,0,.4);white-space:nowrap";
      cover.append(mark);
      (document.body ?? document.documentElement).append(cover);
    })
    // A page that forbids changes to itself is still captured: its file is flagged test all the same.
    .catch(() => {});

/** A capture with extension options: each one's step, in order, on the page the pool lent. */
const captureWithExtras = async (page: Page, cdp: CDPSession, spec: CaptureSpec, options: PageCaptureOptions, test: boolean): Promise<RenderedFile> => {
  const extras = captureExtrasOf(spec);
  if (extras.colorScheme !== null) await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: extras.colorScheme }]);
  // A pool page woken from its frozen state is hidden, and a hidden page runs no animation frames,
  // scroll events, observers or lazy loading: shown as a tab in front while it scrolls.
  const shown = extras.scrollPage;
  let blocking: AdBlocking | undefined;
  try {
    if (shown) await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: true });
    // Loaded with the first capture that asks: workers that never block ads never load the engine.
    if (extras.blockAds) blocking = await (await import('./ad-blocking.js')).attachAdBlocking(page);
    await navigate(page, spec.url, options.navigationTimeoutMs);
    if (extras.waitForSelector !== null) await waitForElement(page, extras.waitForSelector, options.navigationTimeoutMs);
    if (spec.waitTime > 0) await sleep(spec.waitTime);
    if (extras.scrollPage) await scrollThrough(page, Date.now() + options.captureTimeoutMs);
    if (blocking) await blocking.settle(Date.now() + options.captureTimeoutMs);
    if (test) await drawTestWatermark(page);
    if (spec.kind === 'pdf') return await capturePage(page, cdp, spec, options);
    return await captureImage(page, cdp, spec);
  } finally {
    // The page goes back to the pool as a capture without extras would leave it.
    await blocking?.detach();
    if (shown) await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false }).catch(() => {});
    if (extras.colorScheme !== null) await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: '' }]).catch(() => {});
  }
};

/**
 * Screenshots and PDFs of web pages on the shared browser pool, on warm pages of the requesting
 * organization's own; the pool ends a capture that outlives every phase's bound.
 */
export const createPageCapturer = (options: PageCaptureOptions): PageCapturer => ({
  capture: (spec: CaptureSpec, tenant: string, marks = {}): Promise<RenderedFile> =>
    options.pool.withPage(
      async (page, cdp) => {
        const test = marks.test === true;
        await fitViewport(page, { width: spec.width, height: spec.height, deviceScaleFactor: 1 });
        if (hasExtras(spec)) return captureWithExtras(page, cdp, spec, options, test);
        await navigate(page, spec.url, options.navigationTimeoutMs);
        if (spec.waitTime > 0) await sleep(spec.waitTime);
        if (test) await drawTestWatermark(page);
        return capturePage(page, cdp, spec, options);
      },
      {
        tenant,
        deadlineMs: captureLimitMs(options, spec),
        // Captures of one size find a page as the last one left it: viewport set, on the site it captured, frozen.
        affinity: `capture ${spec.width}x${spec.height}`,
        reset: parkCapturePage,
        wake: wakeCapturePage,
      },
    ),
});
