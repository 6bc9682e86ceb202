import type { HTTPRequest, Page } from 'puppeteer-core';
import type { PageCapturer } from '../../application/ports/page-capture.js';
import type { RenderedFile } from '../../application/ports/render-engine.js';
import { PDF_FORMATS, type CaptureSpec } from '../../domain/renders/capture-events.js';
import { DomainError, validationError } from '../../domain/shared/errors.js';
import type { BrowserPool } from './browser-pool.js';
import { encodeImage } from './image-encoder.js';
import type { HostPolicy } from './network-guard.js';

export interface PageCaptureOptions {
  readonly pool: BrowserPool;
  readonly hostPolicy: HostPolicy;
  /** Bound on reaching the load event; past it the page is captured as far as it got. */
  readonly navigationTimeoutMs: number;
  /** Bound on taking the screenshot or printing the PDF once the page is ready. */
  readonly captureTimeoutMs: number;
}

const PDF_CONTENT_TYPE = 'application/pdf';
const BLANK = 'about:blank';

/** Milliseconds a capture may hold its page at most: every phase's bound, plus the client's wait. */
const captureLimitMs = (options: Pick<PageCaptureOptions, 'navigationTimeoutMs' | 'captureTimeoutMs'>, spec: CaptureSpec) =>
  options.navigationTimeoutMs + spec.waitTime + options.captureTimeoutMs;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Settles like work, or throws `onTimeout()` after ms. The page is not stopped here: the pool closes
 * the context once the capture has given up on it, which ends whatever it was still doing.
 */
const bounded = async <T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  work.catch(() => {});
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
};

/**
 * Someone else's page must not get out of the page the guard watches: popups would be pages of
 * their own, service workers fetch beside the page's interception, and dialogs would stall it.
 */
const confine = async (page: Page) => {
  page.on('dialog', (dialog) => void dialog.dismiss().catch(() => {}));
  page.on('popup', (popup) => void popup?.close().catch(() => {}));
  await page.setBypassServiceWorker(true);
  await page.evaluateOnNewDocument('window.open = () => null;');
};

/** Main-frame navigations the network guard refused (the URL itself, or where it redirected). */
const watchRefusedNavigations = (page: Page): string[] => {
  const refused: string[] = [];
  page.on('requestfailed', (request: HTTPRequest) => {
    if (request.failure()?.errorText === 'net::ERR_BLOCKED_BY_CLIENT' && request.isNavigationRequest() && request.frame() === page.mainFrame()) {
      refused.push(request.url());
    }
  });
  return refused;
};

/**
 * Goes to the page and waits for its load event, within the navigation bound. A page that answered
 * but never finishes loading (a hanging image, a stream that never ends) is stopped and captured as
 * it stands; one that never answered, could not be reached or led to a refused address is the request's fault.
 */
const navigate = async (page: Page, url: string, timeoutMs: number) => {
  const refused = watchRefusedNavigations(page);
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
  }
};

const capturePage = async (page: Page, spec: CaptureSpec, captureTimeoutMs: number): Promise<RenderedFile> => {
  if (spec.kind === 'pdf') {
    const paper = PDF_FORMATS[spec.pdfFormat ?? 'A4'];
    const pdf = await page.pdf({ width: `${paper.width}mm`, height: `${paper.height}mm`, printBackground: true, timeout: captureTimeoutMs });
    return { content: Buffer.from(pdf), contentType: PDF_CONTENT_TYPE, width: spec.width, height: spec.height };
  }
  const png = Buffer.from(await page.screenshot({ type: 'png', captureBeyondViewport: false }));
  // The viewport is the requested size; the crop only guarantees it whatever the browser returns.
  const image = await encodeImage(png, { format: 'png', quality: 100, crop: { width: spec.width, height: spec.height } });
  return { content: image.buffer, contentType: image.contentType, width: image.width, height: image.height };
};

/** Screenshots and PDFs of web pages on the shared browser pool, each in a fresh guarded context. */
export const createPageCapturer = (options: PageCaptureOptions): PageCapturer => ({
  capture: (spec: CaptureSpec): Promise<RenderedFile> =>
    options.pool.withPage(async (page) => {
      const limitMs = captureLimitMs(options, spec);
      const work = (async () => {
        await options.hostPolicy.guardPage(page);
        await confine(page);
        await page.setViewport({ width: spec.width, height: spec.height, deviceScaleFactor: 1 });
        await navigate(page, spec.url, options.navigationTimeoutMs);
        if (spec.waitTime > 0) await sleep(spec.waitTime);
        return capturePage(page, spec, options.captureTimeoutMs);
      })();
      return bounded(work, limitMs, () => new DomainError('failed', `The page at ${spec.url} could not be captured within ${limitMs} ms`));
    }),
});
