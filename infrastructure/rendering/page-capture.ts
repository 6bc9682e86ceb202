import type { CDPSession, HTTPRequest, Page } from 'puppeteer-core';
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

const BLANK = 'about:blank';

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
  try {
    await page.goto(url, { waitUntil: 'load', timeout: timeoutMs });
  } catch (error) {
    if (refused.length > 0) {
      throw validationError(`The page at ${url} was refused: it leads to ${refused.at(-1)}, a private, loopback or link-local address`, [
        `url: ${url} leads to a blocked address (${refused.at(-1)}); list the host in ALLOWED_PRIVATE_HOSTS to allow it`,
      ]);
    }
    if ((error as Error).name !== 'TimeoutError') throw validationError(`Could not load ${url}: ${(error as Error).message}`);
    if (page.url() === BLANK) throw validationError(`${url} did not answer within ${timeoutMs} ms`);
    // As the browser's stop button: what is still loading is abandoned, so printing (which waits for the load) can go on.
    await page.evaluate('window.stop()');
  } finally {
    stop();
  }
};

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
  const png = Buffer.from(await page.screenshot({ type: 'png', captureBeyondViewport: false }));
  // The viewport is the requested size; the crop only guarantees it whatever the browser returns.
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
      { tenant, deadlineMs: captureLimitMs(options, spec) },
    ),
});
