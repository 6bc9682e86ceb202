import type { CDPSession, Frame, HTTPRequest, Page } from 'puppeteer-core';
import type { PageCapturer } from '../../application/ports/page-capture.js';
import type { RenderedFile } from '../../application/ports/render-engine.js';
import { PDF_FORMATS, type CaptureSpec } from '../../domain/renders/capture-events.js';
import { outputContentType } from '../../domain/renders/output-formats.js';
import { validationError } from '../../domain/shared/errors.js';
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

/** Milliseconds a capture may hold its page at most: every phase's bound, plus the client's wait. */
const captureLimitMs = (options: Pick<PageCaptureOptions, 'navigationTimeoutMs' | 'captureTimeoutMs'>, spec: CaptureSpec) =>
  options.navigationTimeoutMs + spec.waitTime + options.captureTimeoutMs;

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
 * Screenshots and PDFs of web pages on the shared browser pool, on warm pages of the requesting
 * organization's own; the pool ends a capture that outlives every phase's bound.
 */
export const createPageCapturer = (options: PageCaptureOptions): PageCapturer => ({
  capture: (spec: CaptureSpec, tenant: string): Promise<RenderedFile> =>
    options.pool.withPage(
      async (page, cdp) => {
        await fitViewport(page, { width: spec.width, height: spec.height, deviceScaleFactor: 1 });
        await navigate(page, spec.url, options.navigationTimeoutMs);
        if (spec.waitTime > 0) await sleep(spec.waitTime);
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
