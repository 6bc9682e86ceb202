import type { CDPSession, Page } from 'puppeteer-core';
import { validationError } from '../../domain/shared/errors.js';

/*
 * A template's HTML reaches its page as a navigation answered from memory, not through
 * setContent: setContent writes the markup from inside the page (document.write over CDP), so a
 * script that never yields blocks the call itself, with no timeout that can end it. A navigation
 * gives every render a fresh document and fresh globals too. `.invalid` never resolves (RFC 6761),
 * so nothing else can answer this address; it is http, not https, so templates' http images are
 * not refused as mixed content.
 */
export const TEMPLATE_DOCUMENT_URL = 'http://template.render.invalid/';

/** Above the network guard's refusal, which every `.invalid` request gets. */
const SERVE_PRIORITY = Number.MAX_SAFE_INTEGER;
/** A page still unable to evaluate `1` this long after its load bound is stuck in a script. */
const RESPONSIVE_WITHIN_MS = 1_000;
/** What loading may take beyond its bound: the probes that tell a stuck page from a slow one. */
export const LOAD_PROBE_MARGIN_MS = 2 * RESPONSIVE_WITHIN_MS;

const documents = new WeakMap<Page, string>();

/** Once per page, before the network guard has the page: answers its template navigations. */
export const serveTemplateDocuments = (page: Page): void => {
  page.on('request', (request) => {
    if (request.url() !== TEMPLATE_DOCUMENT_URL || !request.isNavigationRequest() || request.frame() !== page.mainFrame()) return undefined;
    return request
      .respond({ status: 200, contentType: 'text/html; charset=utf-8', body: documents.get(page) ?? '' }, SERVE_PRIORITY)
      .catch(() => {});
  });
};

const settles = async (cdp: CDPSession, expression: string, ms: number): Promise<boolean> => {
  let timer: NodeJS.Timeout | undefined;
  const evaluated = cdp.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }).then(
    () => true,
    () => true,
  );
  try {
    return await Promise.race([evaluated, new Promise<boolean>((resolve) => (timer = setTimeout(resolve, ms, false)))]);
  } finally {
    clearTimeout(timer);
  }
};

/**
 * Loads html as the page's document and waits for its load event, but only so long: a hanging
 * subresource must not hold a browser, and the page renders as far as it got. A page whose
 * scripts never yield cannot render at all, and says so. Web fonts in use must be ready, or text
 * renders in a fallback face.
 */
export const loadTemplateDocument = async (page: Page, cdp: CDPSession, html: string, timeoutMs: number): Promise<void> => {
  documents.set(page, html);
  const loadedBy = performance.now() + timeoutMs;
  try {
    await page.goto(TEMPLATE_DOCUMENT_URL, { waitUntil: 'load', timeout: timeoutMs });
  } catch (error) {
    if ((error as Error).name !== 'TimeoutError') throw error;
    if (!(await settles(cdp, '1', RESPONSIVE_WITHIN_MS))) {
      throw validationError(`The template's scripts kept the page busy for more than ${timeoutMs} ms; it cannot be rendered`);
    }
  }
  const fontsWithinMs = Math.max(RESPONSIVE_WITHIN_MS, loadedBy - performance.now());
  if (!(await settles(cdp, 'document.fonts.ready.then(() => undefined)', fontsWithinMs))) {
    throw validationError(`The template's fonts did not load within ${timeoutMs} ms`);
  }
};
