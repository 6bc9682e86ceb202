import { z } from 'zod';
import { TEMPLATE_PARTS } from '../../domain/templates/template.js';

/** A moment in a query: an ISO 8601 timestamp, or a date meaning its midnight UTC. */
const moment = z.union([z.iso.datetime({ offset: true }), z.iso.date()]).meta({ description: 'ISO 8601 timestamp or date (UTC)' });

export const AuditHistoryQuery = z.object({
  from: moment.optional().meta({ description: 'Only requests made at or after this time' }),
  to: moment.optional().meta({ description: 'Only requests made at or before this time' }),
  template: z.string().min(1).max(200).optional().meta({ description: 'Only renders of this template' }),
  batch: z.string().min(1).max(200).optional().meta({ description: 'Only the rows of this batch (its identifier)' }),
  page: z.coerce.number().int().min(0).max(1_000_000).default(0).meta({ description: 'Zero-based page number' }),
  size: z.coerce.number().int().min(1).max(200).default(50).meta({ description: 'Rows per page, at most 200' }),
}).refine((query) => !query.from || !query.to || Date.parse(query.from) <= Date.parse(query.to), { message: 'from must not be after to', path: ['from'] });
export type AuditHistoryQuery = z.output<typeof AuditHistoryQuery>;

export const AuditUploadsQuery = z.object({
  page: z.coerce.number().int().min(0).max(1_000_000).default(0).meta({ description: 'Zero-based page number' }),
  size: z.coerce.number().int().min(1).max(500).default(100).meta({ description: 'Rows per page, at most 500; X-Total-Count tells how many rows there are' }),
});

export const AuditTemplateParams = z.object({ templateId: z.string().min(1).max(200) });
export const AuditBatchParams = z.object({ batchId: z.string().min(1).max(200) });
export const AuditTemplateQuery = z.object({ at: moment.meta({ description: 'The moment to show the template at' }) });

const at = z.string().meta({ description: 'ISO 8601 UTC' });

const HistoryRow = z
  .object({
    requestId: z.string(),
    kind: z.enum(['render', 'screenshot', 'pdf']),
    orgId: z.string(),
    actor: z.string().meta({ description: 'Id of the API key that asked, or "system"' }),
    correlationId: z.string(),
    requestedAt: at,
    template: z
      .object({
        id: z.string(),
        revision: z.number().int(),
        version: z.number().int().nullable().meta({ description: 'The template version the render drew; null for renders recorded before versions existed' }),
        name: z.string(),
      })
      .nullable(),
    url: z.string().nullable(),
    format: z.string(),
    data: z.record(z.string(), z.unknown()).nullable(),
    request: z.record(z.string(), z.unknown()),
    status: z.enum(['pending', 'done', 'failed']),
    states: z.array(z.object({ state: z.string(), at, detail: z.record(z.string(), z.unknown()).optional() })),
    failureReason: z.string().nullable(),
    file: z
      .object({ storageKey: z.string(), bytes: z.number().int(), contentType: z.string(), cached: z.boolean(), sourceRequestId: z.string().nullable() })
      .nullable(),
    credits: z.object({
      charged: z.number().int(),
      refunded: z.number().int(),
      movements: z.array(z.object({ kind: z.enum(['charged', 'refunded']), amount: z.number().int(), at })),
    }),
    webhooks: z.array(
      z.object({
        deliveryId: z.string(),
        url: z.string(),
        attempt: z.number().int(),
        outcome: z.enum(['failed', 'delivered', 'abandoned']),
        statusCode: z.number().int().nullable(),
        error: z.string().nullable(),
        at,
      }),
    ),
    deletedAt: at.nullable(),
    batch: z
      .object({ id: z.string(), name: z.string(), row: z.number().int().meta({ description: 'Numbered from 1' }) })
      .nullable()
      .meta({ description: 'The batch row the request was made for; null for a request of its own' }),
    position: z.number().int().meta({ description: 'Position of the request in the event log' }),
  })
  .meta({ id: 'AuditHistoryRow' });

export const AuditHistoryPage = z
  .object({ items: z.array(HistoryRow), page: z.number().int(), size: z.number().int(), total: z.number().int() })
  .meta({ id: 'AuditHistoryPage' });

export const TemplateSnapshotSchema = z
  .object({
    templateId: z.string(),
    orgId: z.string(),
    at,
    revision: z.number().int(),
    changedAt: at,
    version: z.number().int().meta({ description: 'The template version at that moment' }),
    publishedVersion: z.number().int().nullable().meta({ description: 'The version renders without templateVersion then used; null: the latest' }),
    versions: z.array(
      z.object({
        version: z.number().int(),
        createdAt: at,
        changed: z.array(z.enum(TEMPLATE_PARTS)),
        restoredFrom: z.number().int().nullable(),
        revision: z.number().int().meta({ description: 'Stream revision of the change that made the version, as renders record it' }),
      }),
    ),
    deletedAt: at.nullable(),
    settings: z.record(z.string(), z.unknown()),
    content: z.object({ html: z.string(), css: z.string(), sampleData: z.record(z.string(), z.unknown()), mergeFields: z.array(z.string()) }).nullable(),
    components: z.unknown(),
    properties: z.array(z.unknown()),
  })
  .meta({ id: 'TemplateSnapshot' });

export const UploadHistoryRowSchema = z
  .object({
    identifier: z.string(),
    kind: z.enum(['font', 'image']),
    uploadedBy: z.string().meta({ description: 'The API key id that uploaded it, or "system"' }),
    uploadedAt: z.string(),
    bytes: z.number().int(),
    storageKey: z.string(),
    font: z.object({ family: z.string(), originalName: z.string(), weight: z.number().int(), style: z.string(), format: z.string() }).nullable(),
    image: z.object({ contentType: z.string(), width: z.number().int(), height: z.number().int() }).nullable(),
    deletedAt: z.string().nullable(),
    deletedBy: z.string().nullable(),
    position: z.number().int().meta({ description: 'Global log position of the upload' }),
  })
  .meta({ id: 'UploadHistoryRow' });

const batchCounts = { done: z.number().int(), failed: z.number().int(), cached: z.number().int(), skipped: z.number().int(), creditsCharged: z.number().int() };

export const BatchHistorySchema = z
  .object({
    batchId: z.string(),
    orgId: z.string(),
    name: z.string(),
    actor: z.string().meta({ description: 'The API key id that submitted it, or "system"' }),
    correlationId: z.string(),
    requestedAt: at,
    template: z.object({ id: z.string(), version: z.number().int().nullable() }),
    outputFormat: z.string(),
    total: z.number().int(),
    credits: z.number().int().meta({ description: 'What the rows cost with no cache hit: what the account had to hold when the batch was accepted' }),
    cache: z.boolean(),
    merge: z.boolean(),
    webhookUrl: z.string().nullable(),
    rows: z.object({ storageKey: z.string(), sha256: z.string(), bytes: z.number().int() }).meta({ description: 'The stored rows file and its SHA-256' }),
    status: z.enum(['pending', 'cancelled', 'ended']),
    states: z.array(z.object({ state: z.string(), at, actor: z.string(), detail: z.record(z.string(), z.unknown()).optional() })),
    refused: z.array(z.object({ row: z.number().int(), requestId: z.string(), reason: z.string(), at })),
    cancelledAt: at.nullable(),
    ended: z.object({ ...batchCounts, mergedStorageKey: z.string().nullable(), endedAt: at }).nullable(),
    position: z.number().int().meta({ description: 'Global log position of the batch request' }),
  })
  .meta({ id: 'BatchHistory' });
