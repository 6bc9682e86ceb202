import type { CDPSession, Page } from 'puppeteer-core';
import type { CaptureOptions, RenderDocument, RenderEngine, RenderedFile } from '../../application/ports/render-engine.js';
import { outputContentType, type ImageFormat } from '../../domain/renders/output-formats.js';
import type { BrowserPool } from './browser-pool.js';
import { encodeImage } from './image-encoder.js';
import { toPdfA2b } from './pdf-a.js';
import { printPdf } from './pdf-pages.js';
import { LOAD_PROBE_MARGIN_MS, loadTemplateForPrint, loadTemplateInFrame } from './template-document.js';
import { fitViewport } from './page-viewport.js';
import { failFastWhenStuck } from './stuck-page.js';
import { refuseUnfitText, type FitReport } from './text-fit/fit-report.js';

export interface ChromiumRenderEngineOptions {
  readonly pool: BrowserPool;
  /** Bound on loading the page (its subresources included); a page that never settles still renders. */
  readonly loadTimeoutMs: number;
  /** Bound on drawing the loaded page into a file (screenshot or PDF). */
  readonly captureTimeoutMs: number;
  /** The most pages a paged PDF may have. */
  readonly maxPdfPages: number;
}

type RenderSettings = Omit<ChromiumRenderEngineOptions, 'pool'>;

/**
 * Chromium encodes the image itself, in the requested format and quality, in one CDP round trip:
 * no PNG to decode and encode again. Only a crop of a scaled page goes through sharp, because
 * Chromium clips in CSS pixels and the crop is given in the image's pixels.
 */
const captureImage = async (cdp: CDPSession, document: RenderDocument, format: ImageFormat, options: CaptureOptions): Promise<RenderedFile> => {
  const { scaleFactor } = document;
  const crop = options.crop ?? undefined;
  const fullWidth = Math.round(document.width * scaleFactor);
  const fullHeight = Math.round(document.height * scaleFactor);
  if (crop && scaleFactor !== 1) {
    const png = await screenshot(cdp, 'png', 100);
    const image = await encodeImage(png, { format, quality: options.quality, crop });
    return { content: image.buffer, contentType: image.contentType, width: image.width, height: image.height };
  }
  const width = crop ? Math.min(crop.width, fullWidth) : fullWidth;
  const height = crop ? Math.min(crop.height, fullHeight) : fullHeight;
  const clip = crop ? { x: 0, y: 0, width, height, scale: 1 } : undefined;
  const content = await screenshot(cdp, format, options.quality, clip);
  return { content, contentType: outputContentType(format), width, height };
};

const screenshot = async (
  cdp: CDPSession,
  format: ImageFormat,
  quality: number,
  clip?: { x: number; y: number; width: number; height: number; scale: number },
): Promise<Buffer> => {
  const { data } = await cdp.send('Page.captureScreenshot', {
    format,
    ...(format === 'png' ? {} : { quality }),
    optimizeForSpeed: true,
    captureBeyondViewport: false,
    ...(clip ? { clip } : {}),
  });
  return Buffer.from(data, 'base64');
};

const pause = (ms: number) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : undefined);

const nameUntitled = (title: string) => `if (!document.title.trim()) document.title = ${JSON.stringify(title)}`;

/**
 * A document is printed from the main frame (printing prints the top document, not a frame in it),
 * so it becomes the main frame's document rather than a frame of the host; the page's reset brings
 * the host back while the page is idle. Untitled, it is named after its template: the PDF's title is
 * the document's, and would otherwise be its internal address.
 */
const printDocument = async (page: Page, cdp: CDPSession, document: RenderDocument, settings: RenderSettings): Promise<RenderedFile> => {
  // Only the template's own scripts are watched: laying out a long document for print is the
  // service's work, bounded by the page limit and the deadline, and may rightly keep the page busy.
  const fit = await failFastWhenStuck(cdp, async () => {
    const report = await loadTemplateForPrint(page, cdp, document.html, settings.loadTimeoutMs);
    refuseUnfitText(report);
    await pause(document.waitTime);
    return report;
  });
  if (document.title) await cdp.send('Runtime.evaluate', { expression: nameUntitled(document.title) });
  const content = await printPdf(page, cdp, {
    width: `${document.width}px`,
    height: `${document.height}px`,
    preferCssPageSize: true,
    maxPages: settings.maxPdfPages,
    timeoutMs: settings.captureTimeoutMs,
  });
  return withFit({ content, contentType: outputContentType('pdf'), width: document.width, height: document.height }, fit);
};

/** The file with what fitting did to its text, when the document had text to fit. */
const withFit = (file: RenderedFile, report: FitReport | undefined): RenderedFile =>
  report && Object.keys(report.fitted).length > 0 ? { ...file, fit: report.fitted } : file;

const renderOn = async (page: Page, cdp: CDPSession, document: RenderDocument, options: CaptureOptions, settings: RenderSettings): Promise<RenderedFile> => {
  await fitViewport(page, { width: document.width, height: document.height, deviceScaleFactor: document.scaleFactor });
  if (options.format === 'pdf' && document.paged) return printDocument(page, cdp, document, settings);
  // A design is drawn once, quickly: its scripts are watched from loading to the capture.
  return failFastWhenStuck(cdp, async () => {
    const fit = await loadTemplateInFrame(page, cdp, document.html, settings.loadTimeoutMs);
    refuseUnfitText(fit);
    await pause(document.waitTime);
    if (options.format === 'pdf') {
      // A design is one page of exactly its size.
      const content = Buffer.from(await page.pdf({ width: `${document.width}px`, height: `${document.height}px`, printBackground: true, pageRanges: '1' }));
      return withFit({ content, contentType: outputContentType('pdf'), width: document.width, height: document.height }, fit);
    }
    return withFit(await captureImage(cdp, document, options.format, options), fit);
  });
};

/** How long a background render (a batch's row) waits for a slot before its activity is retried. */
const BACKGROUND_QUEUE_TIMEOUT_MS = 60_000;

/** Template renders on the pool's warm pages, each bounded by a deadline the pool enforces. */
export const createChromiumRenderEngine = ({ pool, ...settings }: ChromiumRenderEngineOptions): RenderEngine => ({
  async render(document: RenderDocument, options: CaptureOptions): Promise<RenderedFile> {
    const rendered = await pool.withPage((page, cdp) => renderOn(page, cdp, document, options, settings), {
      tenant: options.tenant,
      deadlineMs: settings.loadTimeoutMs + LOAD_PROBE_MARGIN_MS + document.waitTime + settings.captureTimeoutMs,
      // A background render waits its turn longer than a client would, within its activity's own bound.
      ...(options.background ? { background: true, queueTimeoutMs: BACKGROUND_QUEUE_TIMEOUT_MS } : {}),
    });
    // Off the page: post-processing is the worker's own work, and the page can serve the next render meanwhile.
    if (options.pdfStandard === 'PDF/A-2b') return { ...rendered, content: await toPdfA2b(rendered.content, new Date()) };
    return rendered;
  },
});
