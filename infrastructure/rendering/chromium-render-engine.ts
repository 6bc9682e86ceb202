import type { CDPSession, Page } from 'puppeteer-core';
import type { CaptureOptions, RenderDocument, RenderEngine, RenderedFile } from '../../application/ports/render-engine.js';
import type { BrowserPool } from './browser-pool.js';
import { encodeImage, IMAGE_CONTENT_TYPES, type ImageFormat } from './image-encoder.js';
import { LOAD_PROBE_MARGIN_MS, loadTemplateInFrame } from './template-document.js';
import { fitViewport } from './page-viewport.js';

export interface ChromiumRenderEngineOptions {
  readonly pool: BrowserPool;
  /** Bound on loading the page (its subresources included); a page that never settles still renders. */
  readonly loadTimeoutMs: number;
  /** Bound on drawing the loaded page into a file (screenshot or PDF). */
  readonly captureTimeoutMs: number;
}

const PDF_CONTENT_TYPE = 'application/pdf';

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
  return { content, contentType: IMAGE_CONTENT_TYPES[format], width, height };
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

const renderOn = async (page: Page, cdp: CDPSession, document: RenderDocument, options: CaptureOptions, loadTimeoutMs: number) => {
  await fitViewport(page, { width: document.width, height: document.height, deviceScaleFactor: document.scaleFactor });
  await loadTemplateInFrame(page, cdp, document.html, loadTimeoutMs);
  if (document.waitTime > 0) await new Promise((resolve) => setTimeout(resolve, document.waitTime));
  if (options.format === 'pdf') {
    const content = Buffer.from(await page.pdf({ width: `${document.width}px`, height: `${document.height}px`, printBackground: true, pageRanges: '1' }));
    return { content, contentType: PDF_CONTENT_TYPE, width: document.width, height: document.height };
  }
  return captureImage(cdp, document, options.format, options);
};

/** Template renders on the pool's warm pages, each bounded by a deadline the pool enforces. */
export const createChromiumRenderEngine = ({ pool, loadTimeoutMs, captureTimeoutMs }: ChromiumRenderEngineOptions): RenderEngine => ({
  render: (document: RenderDocument, options: CaptureOptions): Promise<RenderedFile> =>
    pool.withPage((page, cdp) => renderOn(page, cdp, document, options, loadTimeoutMs), {
      tenant: options.tenant,
      deadlineMs: loadTimeoutMs + LOAD_PROBE_MARGIN_MS + document.waitTime + captureTimeoutMs,
    }),
});
