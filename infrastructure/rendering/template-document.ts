import type { CDPSession, Page } from 'puppeteer-core';
import { validationError } from '../../domain/shared/errors.js';
import { isScriptFree } from './script-free-markup.js';
import type { FitReport } from './text-fit/fit-report.js';
import { fitTextFunction, needsFitting, parseFitReport } from './text-fit/text-fit-script.js';
import { TIMED_OUT, within } from './within.js';

/*
 * How a template's HTML becomes a document on a warm page.
 *
 * Not page.setContent: it writes into the page's one document, whose realm outlives the write, so
 * the previous render's globals, timers and animation frames carry over, and a template declaring
 * `const x` fails the second time it renders on the same page. Not a navigation per render either:
 * it costs more than the capture itself.
 *
 * Instead the page is a host; a render adds an iframe (a fresh realm, same process, no trip to the
 * network) covering the viewport, writes its document into the frame's initial empty document, and
 * the page's reset removes it with everything its document started. Written, not given as srcdoc: a
 * srcdoc is a navigation, which Chromium's browser process commits for every render, at a cost in
 * Chromium's CPU that a written frame does not pay; an empty iframe made in advance and then given a
 * srcdoc cost a second navigation on top. A written frame still fires its load event once its
 * images, stylesheets and scripts have loaded, which is what a render waits for. The host's own
 * scripts run in an isolated world, so nothing a template changes in the page's JavaScript can
 * touch them.
 *
 * A document no script can run in (script-free-markup.ts) skips the fresh realm: it is written into
 * the host's one sandboxed frame, where the browser runs no script whatever the markup says, and which
 * is rewritten from render to render. A realm no script ever ran in has nothing to carry over, and the
 * new frame was the dearest part of a render: rewriting the reused sandboxed frame costs Chromium
 * about what a raw setContent does. The reset blanks it, so nothing of the last document (an
 * animation, a video) runs on between renders. A document keeps every image it loaded for its
 * whole life, whatever the image's cache headers say, and a rewrite does not end that life: so a
 * document that fetched anything (an upload since deleted, a remote image since changed) has its
 * frame removed by the reset instead, and the next script-free render starts a new one.
 *
 * Printing prints the top document, not a frame in it (a printed frame loses its title, tags and
 * outline), so a paged PDF's document must be the main frame's own. A script-free one is written into
 * the host's document itself, with scripting switched off for the page until the reset writes the
 * host back (or, if the document fetched anything, navigates to it again): no navigation, which would
 * cost more than the print. A document with scripts needs a fresh realm and navigates to its own
 * address, as videos do, which pose the main frame on a virtual clock.
 */

/** `.invalid` never resolves (RFC 6761), so nothing else can answer these addresses; http, so templates' http images are not mixed content. */
export const TEMPLATE_DOCUMENT_URL = 'http://template.render.invalid/';
const HOST_URL = 'http://template.render.invalid/host';
const HOST_HTML = '<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;overflow:hidden;background:#fff}</style></head><body></body></html>';
const HOST_WORLD = 'render-host';

/** Above the network guard's refusal, which every `.invalid` request gets. */
const SERVE_PRIORITY = Number.MAX_SAFE_INTEGER;
/** A page still unable to evaluate `1` this long after its load bound is stuck in a script. */
const RESPONSIVE_WITHIN_MS = 1_000;
/** What loading may take beyond its bound: the probes that tell a stuck page from a slow one. */
export const LOAD_PROBE_MARGIN_MS = 2 * RESPONSIVE_WITHIN_MS;
const HOST_LOAD_TIMEOUT_MS = 5_000;

/**
 * Fresh frames go; the sandboxed one stays, blank (its load event fires within close(), before any
 * next write), unless its document fetched anything.
 */
const CLEAR_FRAMES = `function (discardReused) {
  for (const used of document.querySelectorAll('iframe[data-used]')) used.remove();
  const reused = document.querySelector('iframe[data-script-free]');
  if (reused && discardReused) reused.remove();
  else if (reused) {
    delete reused.dataset.current;
    reused.contentDocument.open();
    reused.contentDocument.close();
  }
}`;

/*
 * The listener goes on after the frame is inserted: inserting it fires a load event of its own, for
 * the empty document it starts with. The written document's load event follows its subresources
 * (its readyState reads "complete" at once, so the event, not the state, is what is waited for).
 * The template's inline scripts run during the write, in the frame's realm, as they would while a
 * navigated document is parsed.
 */
const LOAD_INTO_FRAME = `function (html, scriptFree) {
  return new Promise((resolve) => {
    let frame = scriptFree ? document.querySelector('iframe[data-script-free]') : null;
    if (!frame) {
      frame = document.createElement('iframe');
      frame.style.cssText = 'position:fixed;left:0;top:0;border:0;width:100%;height:100%';
      if (scriptFree) {
        frame.dataset.scriptFree = '';
        frame.sandbox = 'allow-same-origin';
        document.body.prepend(frame);
      } else {
        frame.dataset.used = '';
        document.body.append(frame);
      }
    }
    frame.dataset.current = '';
    frame.addEventListener('load', () => resolve(), { once: true });
    const written = frame.contentDocument;
    written.open();
    written.write(html);
    written.close();
  });
}`;

/*
 * Writes a document over the host's own, in the host's world (a template cannot answer for it).
 * document.open() removes every listener of the window, so the load listener goes on after it.
 */
const WRITE_IN_PLACE = `function (html) {
  return new Promise((resolve) => {
    document.open();
    window.addEventListener('load', () => resolve(), { once: true });
    document.write(html);
    document.close();
  });
}`;

const RESTORE_HOST = `function (html) {
  document.open();
  document.write(html);
  document.close();
}`;

const DOCUMENT_FONTS_READY = `function () { return document.fonts.ready.then(() => undefined); }`;

const FONTS_READY = `function () {
  return document.querySelector('iframe[data-current]').contentDocument.fonts.ready.then(() => undefined);
}`;

/*
 * A <video> paints nothing until its first frame is decoded. The load event waits for that only for
 * media that began loading before it; a source a script sets later (on load, say) is waited for
 * here: every video that is fetching (not one that failed, has no source, or was told not to
 * preload) until it has its current frame.
 */
const videosReadyIn = (doc: string) => `Promise.all([...${doc}.querySelectorAll('video')]
  .filter((v) => v.readyState < 2 && !v.error && v.networkState !== 0 && v.networkState !== 3 && !(v.preload === 'none' && !v.autoplay))
  .map((v) => new Promise((resolve) => {
    v.addEventListener('loadeddata', resolve, { once: true });
    v.addEventListener('error', resolve, { once: true });
  }))).then(() => undefined)`;
const FRAME_VIDEOS_READY = `function () { return ${videosReadyIn("document.querySelector('iframe[data-current]').contentDocument")}; }`;
const DOCUMENT_VIDEOS_READY = videosReadyIn('document');

const documents = new WeakMap<Page, string>();
/** The isolated world of a page's host document, while the main frame still shows it. */
const hosts = new WeakMap<Page, number>();
/** Pages whose host holds no frame of an earlier render: cleared when the page was reset after its last render. */
const cleared = new WeakSet<Page>();
/** Pages whose last render drew in the host's sandboxed frame, and those of them whose document fetched a subresource. */
const scriptFreeInUse = new WeakSet<Page>();
const scriptFreeFetched = new WeakSet<Page>();
/** Pages whose host document a render wrote its own over, to print it. */
const writtenInPlace = new WeakSet<Page>();
/** Pages with scripting switched off, which outlives navigations: the reset switches it on again. */
const scriptingOff = new WeakSet<Page>();

/**
 * Once per page, before the network guard has the page: answers the host and video documents, and
 * forgets the host whenever the main frame goes elsewhere (a capture, a video, a template's doing).
 */
export const serveTemplateDocuments = (page: Page): void => {
  page.on('request', (request) => {
    const url = request.url();
    const ours = (url === TEMPLATE_DOCUMENT_URL || url === HOST_URL) && request.isNavigationRequest() && request.frame() === page.mainFrame();
    if (!ours && scriptFreeInUse.has(page)) scriptFreeFetched.add(page);
    if (!ours) return undefined;
    const body = url === HOST_URL ? HOST_HTML : (documents.get(page) ?? '');
    return request.respond({ status: 200, contentType: 'text/html; charset=utf-8', body }, SERVE_PRIORITY).catch(() => {});
  });
  page.on('framenavigated', (frame) => {
    if (frame !== page.mainFrame()) return;
    hosts.delete(page);
    cleared.delete(page);
    scriptFreeInUse.delete(page);
    scriptFreeFetched.delete(page);
    writtenInPlace.delete(page);
  });
};

const callInHost = async (cdp: CDPSession, contextId: number, functionDeclaration: string, ...args: unknown[]): Promise<unknown> => {
  const { result, exceptionDetails } = await cdp.send('Runtime.callFunctionOn', {
    functionDeclaration,
    executionContextId: contextId,
    arguments: args.map((value) => ({ value })),
    awaitPromise: true,
    returnByValue: true,
  });
  if (exceptionDetails) throw new Error(`the render host failed: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
  return result.value;
};

const buildHost = async (page: Page, cdp: CDPSession): Promise<number> => {
  await page.goto(HOST_URL, { waitUntil: 'load', timeout: HOST_LOAD_TIMEOUT_MS });
  const { frameTree } = await cdp.send('Page.getFrameTree');
  const { executionContextId } = await cdp.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: HOST_WORLD });
  hosts.set(page, executionContextId);
  return executionContextId;
};

/**
 * The page's host with no frame of an earlier render left, built (or rebuilt after the main frame
 * went elsewhere) as needed. The page must have been through serveTemplateDocuments, which answers the host.
 */
export const prepareTemplateHost = async (page: Page, cdp: CDPSession): Promise<number> => {
  const known = hosts.get(page);
  const fetched = scriptFreeFetched.has(page);
  const inPlace = writtenInPlace.has(page);
  scriptFreeInUse.delete(page);
  scriptFreeFetched.delete(page);
  writtenInPlace.delete(page);
  if (scriptingOff.has(page)) {
    await cdp.send('Emulation.setScriptExecutionDisabled', { value: false });
    scriptingOff.delete(page);
  }
  // A document written in place that fetched anything keeps what it fetched while the host lives: a new host then.
  if (known !== undefined && page.url() === HOST_URL && !(inPlace && fetched)) {
    // The host may still have been replaced in between (a template reloading the top document).
    const tidied = inPlace ? callInHost(cdp, known, RESTORE_HOST, HOST_HTML) : callInHost(cdp, known, CLEAR_FRAMES, fetched);
    if (await tidied.then(() => true, () => false)) {
      cleared.add(page);
      return known;
    }
  }
  const contextId = await buildHost(page, cdp);
  cleared.add(page);
  return contextId;
};

/** The host to render in: the one the last reset left cleared (no round trip on the render's path), or one prepared now. */
const readyHost = async (page: Page, cdp: CDPSession): Promise<number> => {
  const known = hosts.get(page);
  if (known !== undefined && cleared.has(page)) return known;
  return prepareTemplateHost(page, cdp);
};

const responsive = async (cdp: CDPSession) => (await within(cdp.send('Runtime.evaluate', { expression: '1' }), RESPONSIVE_WITHIN_MS)) !== TIMED_OUT;

const stuckIn = (timeoutMs: number) =>
  validationError(`The template's scripts kept the page busy for more than ${timeoutMs} ms; it cannot be rendered`);

/** Web fonts in use must be ready, or text renders in a fallback face; within what is left of the load bound. */
const awaitFonts = async (cdp: CDPSession, fontsReady: () => Promise<unknown>, loadedBy: number, timeoutMs: number): Promise<void> => {
  const fontsWithinMs = Math.max(RESPONSIVE_WITHIN_MS, loadedBy - performance.now());
  if ((await within(fontsReady(), fontsWithinMs)) !== TIMED_OUT) return;
  if (!(await responsive(cdp))) throw stuckIn(timeoutMs);
  throw validationError(`The template's fonts did not load within ${timeoutMs} ms`);
};

const FIT_FRAME_TEXT = fitTextFunction("document.querySelector('iframe[data-current]').contentDocument");
const FIT_DOCUMENT_TEXT = fitTextFunction('document');

const evaluateValue = async (cdp: CDPSession, expression: string): Promise<unknown> => {
  const { result, exceptionDetails } = await cdp.send('Runtime.evaluate', { expression, returnByValue: true });
  if (exceptionDetails) throw new Error(`fitting the text failed: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
  return result.value;
};

/**
 * Once the document and its fonts have loaded (text is measured in the faces it is drawn in), its
 * text marked `data-fit` is fitted to its boxes; what fitting did, or undefined when nothing is
 * marked. Fitting lays the text out a few times per element: a document that keeps it busy past the
 * load bound cannot be rendered, like one whose scripts never yield.
 */
const fitLoadedText = async (html: string, fit: () => Promise<unknown>, timeoutMs: number): Promise<FitReport | undefined> => {
  if (!needsFitting(html)) return undefined;
  const report = await within(fit(), timeoutMs);
  if (report === TIMED_OUT) throw stuckIn(timeoutMs);
  return parseFitReport(report);
};

/** Videos that have not decoded a frame by the load bound render as far as they got, like any slow subresource. */
const awaitVideos = async (videosReady: () => Promise<unknown>, loadedBy: number): Promise<void> => {
  await within(videosReady(), Math.max(0, loadedBy - performance.now()));
};

/**
 * Loads html into a frame of the page's host (a new one, or the sandboxed one for a script-free
 * document) and waits for its load event, but only so long: a hanging subresource must not hold a
 * browser, and the page renders as far as it got. A page whose scripts never yield cannot render at
 * all, and says so.
 */
export const loadTemplateInFrame = async (page: Page, cdp: CDPSession, html: string, timeoutMs: number): Promise<FitReport | undefined> => {
  const loadedBy = performance.now() + timeoutMs;
  const contextId = await readyHost(page, cdp);
  cleared.delete(page);
  const scriptFree = isScriptFree(html);
  if (scriptFree) scriptFreeInUse.add(page);
  const loaded = await within(callInHost(cdp, contextId, LOAD_INTO_FRAME, html, scriptFree), timeoutMs);
  if (loaded === TIMED_OUT && !(await responsive(cdp))) throw stuckIn(timeoutMs);
  await awaitFonts(cdp, () => callInHost(cdp, contextId, FONTS_READY), loadedBy, timeoutMs);
  await awaitVideos(() => callInHost(cdp, contextId, FRAME_VIDEOS_READY), loadedBy);
  return fitLoadedText(html, () => callInHost(cdp, contextId, FIT_FRAME_TEXT), timeoutMs);
};

/**
 * Loads a script-free html as the main frame's document for printing, written over the host's own
 * with scripting off (the markup check errs towards scripting; this makes sure). Bounded like
 * loadTemplateInFrame; a script-free document has no video to wait for.
 */
const writeTemplateInPlace = async (page: Page, cdp: CDPSession, html: string, timeoutMs: number): Promise<FitReport | undefined> => {
  const loadedBy = performance.now() + timeoutMs;
  const contextId = await readyHost(page, cdp);
  cleared.delete(page);
  await cdp.send('Emulation.setScriptExecutionDisabled', { value: true });
  scriptingOff.add(page);
  writtenInPlace.add(page);
  scriptFreeInUse.add(page);
  const loaded = await within(callInHost(cdp, contextId, WRITE_IN_PLACE, html), timeoutMs);
  if (loaded === TIMED_OUT && !(await responsive(cdp))) throw stuckIn(timeoutMs);
  await awaitFonts(cdp, () => callInHost(cdp, contextId, DOCUMENT_FONTS_READY), loadedBy, timeoutMs);
  return fitLoadedText(html, () => callInHost(cdp, contextId, FIT_DOCUMENT_TEXT), timeoutMs);
};

/** Loads html as the main frame's document, which is what printing prints: in place when script-free, by navigation otherwise. */
export const loadTemplateForPrint = (page: Page, cdp: CDPSession, html: string, timeoutMs: number): Promise<FitReport | undefined> =>
  isScriptFree(html) ? writeTemplateInPlace(page, cdp, html, timeoutMs) : navigateToTemplateDocument(page, cdp, html, timeoutMs, { awaitVideoFrames: true });

/**
 * Loads html as the main frame's document by navigation, for videos (their frames are posed by
 * scripts in the main frame) and paged PDFs with scripts (printing prints the main frame). Bounded like
 * loadTemplateInFrame. Videos pose <video> elements on their own clock, so only prints wait for them.
 */
export const navigateToTemplateDocument = async (page: Page, cdp: CDPSession, html: string, timeoutMs: number, { awaitVideoFrames = false } = {}): Promise<FitReport | undefined> => {
  documents.set(page, html);
  const loadedBy = performance.now() + timeoutMs;
  try {
    await page.goto(TEMPLATE_DOCUMENT_URL, { waitUntil: 'load', timeout: timeoutMs });
  } catch (error) {
    if ((error as Error).name !== 'TimeoutError') throw error;
    if (!(await responsive(cdp))) throw stuckIn(timeoutMs);
  }
  await awaitFonts(cdp, () => cdp.send('Runtime.evaluate', { expression: 'document.fonts.ready.then(() => undefined)', awaitPromise: true }), loadedBy, timeoutMs);
  if (awaitVideoFrames) await awaitVideos(() => cdp.send('Runtime.evaluate', { expression: DOCUMENT_VIDEOS_READY, awaitPromise: true }), loadedBy);
  return fitLoadedText(html, () => evaluateValue(cdp, `(${FIT_DOCUMENT_TEXT})()`), timeoutMs);
};
