import { DEFAULT_PDF_FORMAT, pdfViewport, CAPTURE_EXTRA_KEYS, SCREENSHOT_PIXEL_BUDGET, type CaptureExtras, type CaptureSpec, type PdfFormat } from './capture-events.js';
import { validationError } from '../shared/errors.js';
import { outputExtension } from './output-formats.js';

/** Spec section 4: a screenshot or a PDF of a page costs what an image render costs. */
export const CAPTURE_CREDITS = 1;

interface CaptureOptions {
  readonly url: string;
  readonly waitTime?: number;
  /** Seconds the href stays valid. */
  readonly expires?: number;
}

type PageExtras = Pick<CaptureExtras, 'scrollPage' | 'waitForSelector' | 'colorScheme' | 'blockAds'>;
type ScreenshotExtras = PageExtras & Pick<CaptureExtras, 'fullPage' | 'selector' | 'format' | 'quality' | 'deviceScaleFactor'>;

export type CaptureInput =
  | (CaptureOptions & ScreenshotExtras & { readonly kind: 'screenshot'; readonly width: number; readonly height: number })
  | (CaptureOptions & PageExtras & { readonly kind: 'pdf'; readonly format?: PdfFormat });

/** Only the extras the client gave: a capture without them records exactly what captures recorded before they existed. */
const extrasOf = (input: Partial<Record<(typeof CAPTURE_EXTRA_KEYS)[number], unknown>>): CaptureExtras => {
  const extras: Record<string, unknown> = {};
  for (const key of CAPTURE_EXTRA_KEYS) if (input[key] !== undefined) extras[key] = input[key];
  return extras as CaptureExtras;
};

/** What no single field's bounds say: a 400 before anything is recorded or charged. */
const assertScreenshotCoherent = (input: Extract<CaptureInput, { kind: 'screenshot' }>) => {
  if (input.quality !== undefined && (input.format ?? 'png') === 'png') {
    throw validationError('quality applies to jpeg and webp screenshots only', ['quality: applies to format jpeg or webp only']);
  }
  if (input.fullPage && input.selector !== undefined) {
    throw validationError('selector and fullPage cannot be combined', ['selector: not with fullPage']);
  }
  const scale = input.deviceScaleFactor ?? 1;
  const pixels = Math.round(input.width * input.height * scale * scale);
  if (pixels > SCREENSHOT_PIXEL_BUDGET) {
    throw validationError(`The screenshot would have ${pixels} pixels, more than the ${SCREENSHOT_PIXEL_BUDGET} a screenshot may have`, [
      `deviceScaleFactor: width x height x deviceScaleFactor² must be at most ${SCREENSHOT_PIXEL_BUDGET}`,
    ]);
  }
};

/** Screenshots are PNG unless asked otherwise: lossless, so the image is the page pixel for pixel. */
export const captureSpecOf = (input: CaptureInput, requestId: string): CaptureSpec => {
  const common = { url: input.url, waitTime: input.waitTime ?? 0, expires: input.expires ?? null };
  if (input.kind === 'screenshot') {
    assertScreenshotCoherent(input);
    const { format, ...rest } = input;
    const extras = extrasOf({ ...rest, format });
    return { ...common, kind: 'screenshot', width: input.width, height: input.height, pdfFormat: null, fileName: `${requestId}${outputExtension(format ?? 'png')}`, ...extras };
  }
  const pdfFormat = input.format ?? DEFAULT_PDF_FORMAT;
  const { format: _paper, ...rest } = input;
  return { ...common, kind: 'pdf', ...pdfViewport(pdfFormat), pdfFormat, fileName: `${requestId}${outputExtension('pdf')}`, ...extrasOf(rest) };
};
