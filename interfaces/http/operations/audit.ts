import { z } from 'zod';
import {
  AuditBatchParams,
  AuditHistoryPage,
  AuditHistoryQuery,
  AuditTemplateParams,
  AuditTemplateQuery,
  AuditUploadsQuery,
  BatchHistorySchema,
  TemplateSnapshotSchema,
  UploadHistoryRowSchema,
} from '../../schemas/audit-schemas.js';
import { operation } from '../operation.js';

// The render history, past template states, uploads and batches, replayed from the event log, for keys with the audit scope.

const asDate = (moment: string | undefined) => (moment === undefined ? undefined : new Date(moment));

export const getAuditHistory = operation({
  id: 'getAuditHistory',
  method: 'get',
  path: '/api/v2/audit/history',
  tags: ['audit'],
  summary: 'Render history replayed from the event log (audit scope)',
  input: { query: AuditHistoryQuery },
  answer: { description: 'One page of history rows, in request order', schema: AuditHistoryPage },
  call: ({ audit }, context, { query: { from, to, template, batch, page, size } }) =>
    audit.historyPage(context, { from: asDate(from), to: asDate(to), templateId: template, batchId: batch, page, size }),
});

export const getUploadHistory = operation({
  id: 'getUploadHistory',
  method: 'get',
  path: '/api/v2/audit/uploads',
  tags: ['audit'],
  summary: 'Every font and image the organization uploaded, who uploaded and deleted it and when, replayed from the event log (audit scope), a page at a time',
  input: { query: AuditUploadsQuery },
  answer: { description: 'One row per upload, in upload order; the X-Total-Count header tells how many there are', schema: z.array(UploadHistoryRowSchema) },
  call: ({ audit }, context, { query }) => audit.uploadHistory(context, query),
  send: (res, { items, total }) => {
    res.setHeader('X-Total-Count', String(total));
    res.json(items);
  },
});

export const getTemplateAt = operation({
  id: 'getTemplateAt',
  method: 'get',
  path: '/api/v2/audit/templates/{templateId}',
  tags: ['audit'],
  summary: 'A template exactly as it was at a moment (audit scope)',
  input: { path: AuditTemplateParams, query: AuditTemplateQuery },
  answer: { description: 'The template at that moment', schema: TemplateSnapshotSchema },
  call: ({ audit }, context, { path, query }) => audit.templateAt(context, path.templateId, new Date(query.at)),
});

export const getBatchHistory = operation({
  id: 'getBatchHistory',
  method: 'get',
  path: '/api/v2/audit/batches/{batchId}',
  tags: ['audit'],
  summary:
    "A batch's history from its own stream: what it was asked with, rows refused, its cancellation and the counts it ended with (audit scope); its rows' renders are in the history with `batch`",
  input: { path: AuditBatchParams },
  answer: { description: 'The batch history', schema: BatchHistorySchema },
  call: ({ audit }, context, { path }) => audit.batchHistory(context, path.batchId),
});
