import type { DomainEvent } from '../shared/events.js';

export const CAPTURE_KINDS = ['screenshot', 'pdf'] as const;
export type CaptureKind = (typeof CAPTURE_KINDS)[number];

/** Spec section 8: screenshot width and height, and the wait of both captures. */
export const SCREENSHOT_SIZE = { min: 32, max: 5000 } as const;
export const CAPTURE_WAIT_TIME = { min: 0, max: 5000 } as const;

/** Image formats a screenshot may be stored in; PNG unless asked otherwise. */
export const SCREENSHOT_FORMATS = ['png', 'jpeg', 'webp'] as const;
export type ScreenshotFormat = (typeof SCREENSHOT_FORMATS)[number];
export const COLOR_SCHEMES = ['light', 'dark'] as const;
export type ColorScheme = (typeof COLOR_SCHEMES)[number];
/** jpeg and webp quality; the default when a lossy format is asked without one. */
export const SCREENSHOT_QUALITY = { min: 1, max: 100, default: 80 } as const;
export const CAPTURE_DEVICE_SCALE = { min: 1, max: 3 } as const;
/** The tallest full-page screenshot, in CSS pixels: a page taller than this is cut there (and a page that grows forever stops there). */
export const FULL_PAGE_MAX_HEIGHT = 16_384;
/** The most device pixels one screenshot may hold, as a template render (PIXEL_BUDGET.image). */
export const SCREENSHOT_PIXEL_BUDGET = 50_000_000;
/** A CSS selector the client names: to wait for or to capture. */
export const CAPTURE_SELECTOR_MAX_LENGTH = 500;

/**
 * What a capture may add to the page's plain viewport picture. Every field is optional in the
 * recorded event: a capture requested before they existed reads as their defaults, which are
 * exactly what captures did then (a PNG of the viewport at scale 1, light, nothing blocked).
 */
export interface CaptureExtras {
  /** Screenshot only: the whole page's height (bounded by FULL_PAGE_MAX_HEIGHT and the pixel budget), not just the viewport. */
  readonly fullPage?: boolean;
  /** Scroll to the bottom and back before capturing, so lazy content loads (within the capture's deadline). */
  readonly scrollPage?: boolean;
  /** Wait (within the navigation bound) for an element matching this selector before capturing. */
  readonly waitForSelector?: string;
  /** Screenshot only: capture exactly the box of the first element matching this selector. */
  readonly selector?: string;
  /** Screenshot only. */
  readonly format?: ScreenshotFormat;
  /** jpeg and webp only. */
  readonly quality?: number;
  /** Screenshot only: device pixels per CSS pixel. */
  readonly deviceScaleFactor?: number;
  readonly colorScheme?: ColorScheme;
  /** Hide or block ads, trackers and cookie-consent pop-ups. */
  readonly blockAds?: boolean;
}

/** Every extra's name: a capture with none of them is a capture as it was before they existed. */
export const CAPTURE_EXTRA_KEYS = ['fullPage', 'scrollPage', 'waitForSelector', 'selector', 'format', 'quality', 'deviceScaleFactor', 'colorScheme', 'blockAds'] as const satisfies readonly (keyof CaptureExtras)[];

/** The extras with their defaults filled in. */
export const captureExtrasOf = (spec: CaptureExtras) => ({
  fullPage: spec.fullPage ?? false,
  scrollPage: spec.scrollPage ?? false,
  waitForSelector: spec.waitForSelector ?? null,
  selector: spec.selector ?? null,
  format: spec.format ?? ('png' as ScreenshotFormat),
  quality: spec.quality ?? SCREENSHOT_QUALITY.default,
  deviceScaleFactor: spec.deviceScaleFactor ?? 1,
  colorScheme: spec.colorScheme ?? null,
  blockAds: spec.blockAds ?? false,
});

/** Paper sizes in millimetres, portrait except Ledger (Tabloid turned sideways), as browsers print them. */
export const PDF_FORMATS = {
  A0: { width: 841, height: 1189 },
  A1: { width: 594, height: 841 },
  A2: { width: 420, height: 594 },
  A3: { width: 297, height: 420 },
  A4: { width: 210, height: 297 },
  A5: { width: 148, height: 210 },
  A6: { width: 105, height: 148 },
  Letter: { width: 215.9, height: 279.4 },
  Legal: { width: 215.9, height: 355.6 },
  Tabloid: { width: 279.4, height: 431.8 },
  Ledger: { width: 431.8, height: 279.4 },
} as const satisfies Record<string, { width: number; height: number }>;
export type PdfFormat = keyof typeof PDF_FORMATS;
export const PDF_FORMAT_NAMES = Object.keys(PDF_FORMATS) as [PdfFormat, ...PdfFormat[]];
export const DEFAULT_PDF_FORMAT: PdfFormat = 'A4';

const CSS_PIXELS_PER_MM = 96 / 25.4;

/** The viewport a PDF page is laid out in: the paper's size in CSS pixels, as print media sees it. */
export const pdfViewport = (format: PdfFormat): { width: number; height: number } => ({
  width: Math.round(PDF_FORMATS[format].width * CSS_PIXELS_PER_MM),
  height: Math.round(PDF_FORMATS[format].height * CSS_PIXELS_PER_MM),
});

/** What a worker needs to capture a web page, fixed when the request is accepted. */
export interface CaptureSpec extends CaptureExtras {
  readonly kind: CaptureKind;
  /** Checked against the host policy when accepted, and every request the page makes again while it loads. */
  readonly url: string;
  /** Viewport in CSS pixels: the screenshot's exact size; for a PDF the paper's size. */
  readonly width: number;
  readonly height: number;
  /** Milliseconds to wait after the page loaded, before the capture. */
  readonly waitTime: number;
  /** PDF only. */
  readonly pdfFormat: PdfFormat | null;
  readonly fileName: string;
  /** Seconds the href stays valid; null for a link that does not expire. */
  readonly expires: number | null;
}

/**
 * A screenshot or PDF of a web page. It lives in the `render-<requestId>` stream family and ends
 * like a render (RenderCompleted, RenderFailed, ResultDeleted), so results, usage, deletion and
 * webhooks treat both alike.
 */
export type CaptureRequested = DomainEvent<
  'CaptureRequested',
  {
    requestId: string;
    orgId: string;
    /** The request exactly as the client sent it, for webhooks, v1 listings and audits. */
    request: Record<string, unknown>;
    capture: CaptureSpec;
    credits: number;
    webhookUrl: string | null;
    requestedAt: string;
    /** Made with a test key: free, watermarked, kept a day (test-mode.ts). Absent otherwise. */
    test?: true;
  }
>;
