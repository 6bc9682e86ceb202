import { z } from 'zod';
import {
  CAPTURE_DEVICE_SCALE,
  CAPTURE_SELECTOR_MAX_LENGTH,
  CAPTURE_WAIT_TIME,
  COLOR_SCHEMES,
  FULL_PAGE_MAX_HEIGHT,
  PDF_FORMAT_NAMES,
  SCREENSHOT_FORMATS,
  SCREENSHOT_PIXEL_BUDGET,
  SCREENSHOT_QUALITY,
  SCREENSHOT_SIZE,
} from '../../domain/renders/capture-events.js';
import { RenderBody } from './render-schemas.js';

const pageUrl = z.string().min(1).max(2048).meta({ description: 'http or https; its host must resolve to a public address' });
const waitTime = z.number().int().min(CAPTURE_WAIT_TIME.min).max(CAPTURE_WAIT_TIME.max).meta({ description: 'Milliseconds to wait after the page loaded' });
const screenshotSide = z.number().int().min(SCREENSHOT_SIZE.min).max(SCREENSHOT_SIZE.max);
/** Beyond the spec's fields, both captures take what a v2 render takes for its outcome and link. */
const delivery = { webhookUrl: RenderBody.shape.webhookUrl, expires: RenderBody.shape.expires };

const cssSelector = z.string().trim().min(1).max(CAPTURE_SELECTOR_MAX_LENGTH);

/** Extensions both captures take: how the page is brought to the state it is captured in. */
const pageExtras = {
  scrollPage: z.boolean().optional().meta({
    description: `Scroll to the bottom and back before capturing, so lazy images and sections load; within the capture's deadline, and no further than ${FULL_PAGE_MAX_HEIGHT} px`,
  }),
  waitForSelector: cssSelector.optional().meta({ description: 'Wait (within the navigation bound) until an element matches this CSS selector; a 400 if none does in time' }),
  colorScheme: z.enum(COLOR_SCHEMES).optional().meta({ description: 'prefers-color-scheme the page sees; the browser default (light) when absent' }),
  blockAds: z.boolean().optional().meta({ description: 'Block ads and trackers and hide ads and cookie-consent pop-ups, with lists shipped in the service (nothing fetched at run time)' }),
};

export const ScreenshotBody = z
  .object({
    url: pageUrl,
    width: screenshotSide,
    height: screenshotSide,
    waitTime: waitTime.optional(),
    ...delivery,
    fullPage: z.boolean().optional().meta({
      description: `The whole page, not just the viewport: width x the page's height, at most ${FULL_PAGE_MAX_HEIGHT} px and ${SCREENSHOT_PIXEL_BUDGET} device pixels (cut there)`,
    }),
    selector: cssSelector.optional().meta({ description: "Capture exactly the box of the first element matching this CSS selector (a 400 if none does); not with fullPage" }),
    format: z.enum(SCREENSHOT_FORMATS).optional().meta({ description: 'png (default), jpeg or webp' }),
    quality: z.number().int().min(SCREENSHOT_QUALITY.min).max(SCREENSHOT_QUALITY.max).optional().meta({
      description: `jpeg and webp only, ${SCREENSHOT_QUALITY.min}-${SCREENSHOT_QUALITY.max}; ${SCREENSHOT_QUALITY.default} when absent`,
    }),
    deviceScaleFactor: z.number().min(CAPTURE_DEVICE_SCALE.min).max(CAPTURE_DEVICE_SCALE.max).optional().meta({
      description: `Device pixels per CSS pixel, ${CAPTURE_DEVICE_SCALE.min}-${CAPTURE_DEVICE_SCALE.max}; 1 when absent. width x height x deviceScaleFactor² at most ${SCREENSHOT_PIXEL_BUDGET}`,
    }),
    ...pageExtras,
  })
  .strict()
  // Checks across fields (quality without a lossy format, selector with fullPage, the pixel budget) are the domain's: captureSpecOf.
  .meta({ id: 'ScreenshotRequest' });

export const PdfBody = z
  .object({
    url: pageUrl,
    waitTime: waitTime.optional(),
    format: z.enum(PDF_FORMAT_NAMES).optional().meta({ description: 'Paper size; A4 when absent' }),
    ...delivery,
    ...pageExtras,
  })
  .strict()
  .meta({ id: 'PdfRequest' });

export const CaptureResponse = z
  .object({ requestId: z.string(), href: z.string(), request: z.record(z.string(), z.unknown()).meta({ description: 'The request as sent' }) })
  .meta({ id: 'CaptureResponse' });

export const V1RenderBody = z
  .object({
    template: RenderBody.shape.template,
    changes: z
      .array(z.record(z.string(), z.unknown()))
      .max(1000)
      .optional()
      .meta({ description: '`{ id, <property>: value }` per component; `{ id, property, value }` with options=USE_SIMPLE_ARRAY' }),
    changesDictionary: z.record(z.string(), z.unknown()).optional().meta({ description: 'Keyed `<componentId>.<property>`' }),
    mergeFields: z.record(z.string(), z.unknown()).optional().meta({ description: 'html-editor templates: merge-field values' }),
    fileName: RenderBody.shape.fileName,
    webhookUrl: RenderBody.shape.webhookUrl,
    metadata: RenderBody.shape.metadata,
  })
  .strict()
  .meta({ id: 'RenderRequestV1' });

export const V1RenderQuery = z.object({ options: z.enum(['USE_SIMPLE_ARRAY']).optional() });

export const V1RenderResponse = z.object({ requestId: z.string(), href: z.string() }).meta({ id: 'RenderResponseV1' });

export const RequestsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).meta({ description: 'At most 100' }),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

export const RequestRecord = z
  .object({
    identifier: z.string(),
    href: z.string(),
    executeUrl: z.string().optional().meta({ description: 'Screenshots and PDFs only' }),
    status: z.string().meta({ description: 'OK, PROCESSING or INTERNAL_SERVER_ERROR' }),
    width: z.number().int().optional(),
    height: z.number().int().optional(),
    type: z.enum(['screenshot', 'image']),
    template: z.string().optional(),
    templateName: z.string().optional(),
    changes: z.array(z.record(z.string(), z.unknown())).optional(),
    createdAt: z.string().meta({ description: 'yyyy-MM-ddTHH:mm:ss, UTC wall clock without zone' }),
  })
  .meta({ id: 'RequestRecord' });
