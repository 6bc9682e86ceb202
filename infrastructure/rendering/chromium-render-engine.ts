import type { Page } from 'puppeteer-core';
import type { CaptureOptions, RenderDocument, RenderEngine, RenderedFile } from '../../application/ports/render-engine.js';
import type { BrowserPool } from './browser-pool.js';
import { encodeImage } from './image-encoder.js';
import type { HostPolicy } from './network-guard.js';

export interface ChromiumRenderEngineOptions {
  readonly pool: BrowserPool;
  readonly hostPolicy: HostPolicy;
  /** Bound on loading the page (its subresources included); a page that never settles still renders. */
  readonly loadTimeoutMs: number;
}

const PDF_CONTENT_TYPE = 'application/pdf';

/** Waits for the load event, but only so long: a hanging subresource must not hold a browser. */
export const loadDocument = async (page: Page, html: string, timeoutMs: number) => {
  try {
    await page.setContent(html, { waitUntil: 'load', timeout: timeoutMs });
  } catch (error) {
    if ((error as Error).name !== 'TimeoutError') throw error;
  }
  // Web fonts in use must be ready, or text renders in a fallback face.
  await page.evaluate('document.fonts.ready.then(() => undefined)');
};

export const createChromiumRenderEngine = ({ pool, hostPolicy, loadTimeoutMs }: ChromiumRenderEngineOptions): RenderEngine => ({
  render: (document: RenderDocument, options: CaptureOptions): Promise<RenderedFile> =>
    pool.withPage(async (page) => {
      await hostPolicy.guardPage(page);
      await page.setViewport({ width: document.width, height: document.height, deviceScaleFactor: document.scaleFactor });
      await loadDocument(page, document.html, loadTimeoutMs);
      if (document.waitTime > 0) await new Promise((resolve) => setTimeout(resolve, document.waitTime));

      if (options.format === 'pdf') {
        const content = Buffer.from(
          await page.pdf({ width: `${document.width}px`, height: `${document.height}px`, printBackground: true, pageRanges: '1' }),
        );
        return { content, contentType: PDF_CONTENT_TYPE, width: document.width, height: document.height };
      }
      const png = Buffer.from(await page.screenshot({ type: 'png', optimizeForSpeed: true, captureBeyondViewport: false }));
      const crop = options.crop ?? undefined;
      const image = await encodeImage(png, { format: options.format, quality: options.quality, crop });
      return { content: image.buffer, contentType: image.contentType, width: image.width, height: image.height };
    }),
});

