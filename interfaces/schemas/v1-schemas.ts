import { z } from 'zod';
import { CAPTURE_WAIT_TIME, PDF_FORMAT_NAMES, SCREENSHOT_SIZE } from '../../domain/renders/capture-events.js';
import { RenderBody } from './render-schemas.js';

const pageUrl = z.string().min(1).max(2048).meta({ description: 'http or https; its host must resolve to a public address' });
const waitTime = z.number().int().min(CAPTURE_WAIT_TIME.min).max(CAPTURE_WAIT_TIME.max).meta({ description: 'Milliseconds to wait after the page loaded' });
const screenshotSide = z.number().int().min(SCREENSHOT_SIZE.min).max(SCREENSHOT_SIZE.max);
/** Beyond the spec's fields, both captures take what a v2 render takes for its outcome and link. */
const delivery = { webhookUrl: RenderBody.shape.webhookUrl, expires: RenderBody.shape.expires };

export const ScreenshotBody = z
  .object({ url: pageUrl, width: screenshotSide, height: screenshotSide, waitTime: waitTime.optional(), ...delivery })
  .strict()
  .meta({ id: 'ScreenshotRequest' });

export const PdfBody = z
  .object({ url: pageUrl, waitTime: waitTime.optional(), format: z.enum(PDF_FORMAT_NAMES).optional().meta({ description: 'Paper size; A4 when absent' }), ...delivery })
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
