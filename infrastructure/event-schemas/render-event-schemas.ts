import { z } from 'zod';
import { CAPTURE_KINDS, COLOR_SCHEMES, PDF_FORMAT_NAMES, SCREENSHOT_FORMATS } from '../../domain/renders/capture-events.js';
import { PDF_STANDARDS } from '../../domain/renders/pdf-standards.js';
import type { RenderEvent } from '../../domain/renders/render-events.js';
import { EDITORS, OUTPUT_FORMATS } from '../../domain/templates/template-settings.js';
import { id, isoTime, jsonObject } from './common-schemas.js';
import { eventSchema, type EventSchemas } from './versioned-event-schema.js';

const size = z.number().int().positive();

const renderSpec = z.object({
  templateId: id,
  templateRevision: z.number().int().nonnegative(),
  // Optional rather than a new version: requests made before versions existed did not record one.
  templateVersion: z.number().int().positive().optional(),
  templateName: z.string(),
  editor: z.enum(EDITORS),
  format: z.enum(OUTPUT_FORMATS),
  width: size,
  height: size,
  crop: z.object({ width: size, height: size }).nullable(),
  quality: z.number().int(),
  scaleFactor: z.number(),
  data: jsonObject,
  waitTime: z.number().int().nonnegative(),
  fileName: z.string(),
  expires: z.number().int().nullable(),
  duration: z.number().int().nullable(),
  fps: z.number().int().nullable(),
  // Optional rather than a new version: requests made before it simply did not ask for a standard.
  pdfStandard: z.enum(PDF_STANDARDS).optional(),
});

const captureSpec = z.object({
  kind: z.enum(CAPTURE_KINDS),
  url: z.string().min(1),
  width: size,
  height: size,
  waitTime: z.number().int().nonnegative(),
  pdfFormat: z.enum(PDF_FORMAT_NAMES).nullable(),
  fileName: z.string(),
  expires: z.number().int().nullable(),
  // Optional rather than a new version: captures requested before them read as their defaults (a PNG of the viewport, as then).
  fullPage: z.boolean().optional(),
  scrollPage: z.boolean().optional(),
  waitForSelector: z.string().optional(),
  selector: z.string().optional(),
  format: z.enum(SCREENSHOT_FORMATS).optional(),
  quality: z.number().int().optional(),
  deviceScaleFactor: z.number().optional(),
  colorScheme: z.enum(COLOR_SCHEMES).optional(),
  blockAds: z.boolean().optional(),
});

const renderRequested = z.object({
  requestId: id,
  orgId: id,
  request: jsonObject,
  spec: renderSpec,
  cacheKey: z.string().nullable(),
  credits: z.number().int().nonnegative(),
  batchName: z.string().nullable(),
  metadata: jsonObject.nullable(),
  webhookUrl: z.string().nullable(),
  requestedAt: isoTime,
  dataFrom: id.nullable(),
  test: z.literal(true).optional(),
});

const storedFile = z.object({
  storageKey: z.string(),
  fileName: z.string(),
  contentType: z.string(),
  bytes: z.number().int().nonnegative(),
  width: z.number().int().nonnegative(),
  height: z.number().int().nonnegative(),
  fit: z.record(z.string(), z.object({ fontSize: z.number().nonnegative(), lines: z.number().int().nonnegative(), truncated: z.boolean() })).optional(),
});

export const renderEventSchemas: EventSchemas<RenderEvent> = {
  /** v1 had no `dataFrom`: every request stored its data. */
  RenderRequested: eventSchema(
    renderRequested,
    // v1 always stored the data itself.
    (v1) => ({ ...v1, dataFrom: null }),
  ),
  CaptureRequested: eventSchema(
    z.object({
      requestId: id,
      orgId: id,
      request: jsonObject,
      capture: captureSpec,
      credits: z.number().int().nonnegative(),
      webhookUrl: z.string().nullable(),
      requestedAt: isoTime,
      test: z.literal(true).optional(),
    }),
  ),
  RenderServedFromCache: eventSchema(renderRequested.extend({ file: storedFile, sourceRequestId: id, completedAt: isoTime })),
  /** v1 (before the render cache) had neither `cached` nor `sourceRequestId`: every file was rendered. */
  RenderCompleted: eventSchema(
    storedFile.extend({ requestId: id, cached: z.boolean(), sourceRequestId: z.string().nullable(), completedAt: isoTime }),
    (v1) => ({ ...v1, cached: v1.cached ?? false, sourceRequestId: v1.sourceRequestId ?? null }),
  ),
  RenderFailed: eventSchema(z.object({ requestId: id, reason: z.string(), failedAt: isoTime })),
  ResultDeleted: eventSchema(z.object({ requestId: id, deletedAt: isoTime })),
  RenderProgressed: eventSchema(
    z.object({
      requestId: id,
      framesDone: z.number().int().positive(),
      framesTotal: z.number().int().positive(),
      at: isoTime,
      segment: z.object({ index: z.number().int().min(0), framesDone: z.number().int().positive() }).optional(),
    }),
  ),
  WebhookDeliveryFailed: eventSchema(
    z.object({
      requestId: id,
      deliveryId: id,
      url: z.string().min(1),
      attempt: z.number().int().positive(),
      statusCode: z.number().int().nullable(),
      error: z.string(),
      failedAt: isoTime,
    }),
  ),
  WebhookDelivered: eventSchema(
    z.object({
      requestId: id,
      deliveryId: id,
      url: z.string().min(1),
      attempts: z.number().int().positive(),
      statusCode: z.number().int(),
      deliveredAt: isoTime,
    }),
  ),
  WebhookAbandoned: eventSchema(
    z.object({
      requestId: id,
      deliveryId: id,
      url: z.string().min(1),
      attempts: z.number().int().nonnegative(),
      reason: z.string(),
      abandonedAt: isoTime,
    }),
  ),
};
