import type { CDPSession, Page } from 'puppeteer-core';
import { validationError } from '../../domain/shared/errors.js';

export interface PdfPrint {
  /** Paper size (a CSS length each); a document's own `@page` size wins when `preferCssPageSize`. */
  readonly width: string;
  readonly height: string;
  readonly preferCssPageSize: boolean;
  /** The most pages a PDF may have; a document with more is the request's fault. */
  readonly maxPages: number;
  /** Bound on the print itself. */
  readonly timeoutMs: number;
}

const PROBE_WORLD = 'pdf-page-probe';

/*
 * Chromium paginates the whole document whichever pages it is asked to print, in time that grows
 * faster than the page count (and faster still for a tagged PDF): a template that forces tens of
 * thousands of breaks would hold a page far past any render's deadline. Forced breaks are counted
 * before printing, in print media and in a world of its own that the page's scripts cannot fake. Two
 * counted breaks may make one (an element's break-after meeting the next one's break-before), so
 * only twice the limit refuses here; a document between that and the limit is caught by the count
 * of printed pages.
 */
const COUNT_FORCED_BREAKS = `function (enough) {
  const FORCED = new Set(['page', 'left', 'right', 'recto', 'verso', 'always']);
  const IN_FLOW = (style) => style.display !== 'contents' && !style.display.startsWith('inline') && style.float === 'none' && style.position !== 'absolute' && style.position !== 'fixed';
  const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_ELEMENT, {
    acceptNode: (element) => (getComputedStyle(element).display === 'none' ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  let breaks = 0;
  for (let element = walker.nextNode(); element && breaks <= enough; element = walker.nextNode()) {
    const style = getComputedStyle(element);
    if (!IN_FLOW(style)) continue;
    if (FORCED.has(style.breakBefore)) breaks++;
    if (FORCED.has(style.breakAfter)) breaks++;
  }
  return breaks;
}`;

const tooManyPages = (maxPages: number) =>
  validationError(`The document has more than ${maxPages} pages, the most a PDF may have`, [
    `pages: more than the limit of ${maxPages}`,
  ]);

/** Forced page breaks in the main frame's document, counted up to just past `enough`. */
const forcedBreaks = async (cdp: CDPSession, enough: number): Promise<number> => {
  const { frameTree } = await cdp.send('Page.getFrameTree');
  const { executionContextId } = await cdp.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: PROBE_WORLD });
  await cdp.send('Emulation.setEmulatedMedia', { media: 'print' });
  try {
    const { result, exceptionDetails } = await cdp.send('Runtime.callFunctionOn', {
      functionDeclaration: COUNT_FORCED_BREAKS,
      executionContextId,
      arguments: [{ value: enough }],
      returnByValue: true,
    });
    if (exceptionDetails) throw new Error(`counting page breaks failed: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    return Number(result.value);
  } finally {
    // The page is reused by later renders, which expect screen media.
    await cdp.send('Emulation.setEmulatedMedia', { media: '' });
  }
};

/**
 * Pages of a PDF as Chromium (Skia) writes it: every page is an object whose dictionary opens with
 * its type, which a string inside the file (a title, a link) cannot do.
 */
export const countPdfPages = (pdf: Uint8Array): number =>
  Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString('latin1').match(/\d+ \d+ obj\s*<<\s*\/Type\s*\/Page(?![A-Za-z])/g)?.length ?? 0;

/**
 * Prints the main frame's document to a PDF of every page it needs, tagged (so text is structured
 * for assistive technology) with its headings as the outline. At most one page past the limit is
 * ever printed, so a document far beyond it costs no more memory than one just past it.
 */
export const printPdf = async (page: Page, cdp: CDPSession, print: PdfPrint): Promise<Buffer> => {
  if ((await forcedBreaks(cdp, 2 * (print.maxPages + 1))) > 2 * (print.maxPages + 1)) throw tooManyPages(print.maxPages);
  const pdf = await page.pdf({
    width: print.width,
    height: print.height,
    preferCSSPageSize: print.preferCssPageSize,
    printBackground: true,
    tagged: true,
    outline: true,
    pageRanges: `1-${print.maxPages + 1}`,
    timeout: print.timeoutMs,
  });
  if (countPdfPages(pdf) > print.maxPages) throw tooManyPages(print.maxPages);
  return Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
};
