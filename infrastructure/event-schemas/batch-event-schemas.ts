import { z } from 'zod';
import type { BatchEvent } from '../../domain/batches/batch-events.js';
import { OUTPUT_FORMATS } from '../../domain/renders/output-formats.js';
import { id, isoTime } from './common-schemas.js';
import { eventSchema, type EventSchemas } from './versioned-event-schema.js';

const count = z.number().int().nonnegative();

export const batchEventSchemas: EventSchemas<BatchEvent> = {
  BatchRequested: eventSchema(
    z.object({
      batchId: id,
      orgId: id,
      name: z.string().min(1),
      templateId: id,
      templateVersion: z.number().int().positive().nullable(),
      outputFormat: z.enum(OUTPUT_FORMATS),
      total: z.number().int().positive(),
      rows: z.object({ storageKey: z.string().min(1), sha256: z.string().regex(/^[0-9a-f]{64}$/), bytes: count }),
      credits: count,
      cache: z.boolean(),
      webhookUrl: z.string().nullable(),
      merge: z.boolean(),
      requestedAt: isoTime,
    }),
  ),
  BatchRowRefused: eventSchema(z.object({ batchId: id, row: z.number().int().positive(), requestId: id, reason: z.string(), refusedAt: isoTime })),
  BatchCancelled: eventSchema(z.object({ batchId: id, cancelledAt: isoTime })),
  BatchEnded: eventSchema(
    z.object({ batchId: id, done: count, failed: count, cached: count, skipped: count, creditsCharged: count, mergedStorageKey: z.string().nullable(), endedAt: isoTime }),
  ),
};
