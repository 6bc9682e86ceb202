import { DEFAULT_PDF_FORMAT, pdfViewport, type CaptureSpec, type PdfFormat } from './capture-events.js';
import { outputExtension } from './output-formats.js';

/** Spec section 4: a screenshot or a PDF of a page costs what an image render costs. */
export const CAPTURE_CREDITS = 1;

interface CaptureOptions {
  readonly url: string;
  readonly waitTime?: number;
  /** Seconds the href stays valid. */
  readonly expires?: number;
}

export type CaptureInput =
  | (CaptureOptions & { readonly kind: 'screenshot'; readonly width: number; readonly height: number })
  | (CaptureOptions & { readonly kind: 'pdf'; readonly format?: PdfFormat });

/** Screenshots are PNG: lossless, so the image is the page pixel for pixel. */
export const captureSpecOf = (input: CaptureInput, requestId: string): CaptureSpec => {
  const common = { url: input.url, waitTime: input.waitTime ?? 0, expires: input.expires ?? null };
  if (input.kind === 'screenshot') {
    return { ...common, kind: 'screenshot', width: input.width, height: input.height, pdfFormat: null, fileName: `${requestId}${outputExtension('png')}` };
  }
  const pdfFormat = input.format ?? DEFAULT_PDF_FORMAT;
  return { ...common, kind: 'pdf', ...pdfViewport(pdfFormat), pdfFormat, fileName: `${requestId}${outputExtension('pdf')}` };
};
