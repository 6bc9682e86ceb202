import { completedFields, failedFields, progressedFields, requestedCaptureResult, requestedResult } from '../../application/results/result-view.js';
import { webhookAfter } from '../../application/webhooks/webhook-view.js';
import { isRenderEvent, type RenderEvent } from '../../domain/renders/render-events.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import { ResultRow } from '../read-models/entities.js';
import { fold, type DocumentProjection } from './document-projection.js';

const newResult = (view: ReturnType<typeof requestedResult>): ResultRow => ({ ...view, webhook: view.webhook ?? null, deleted: false, fileDeleted: false });

/** A request's result row, from its own stream. */
export const evolveResult = (row: ResultRow | null, event: RecordedEvent<RenderEvent>): ResultRow | null => {
  if (event.type === 'RenderRequested') return newResult(requestedResult(event.data));
  if (event.type === 'CaptureRequested') return newResult(requestedCaptureResult(event.data));
  if (row === null) return null;
  switch (event.type) {
    case 'RenderCompleted':
      return { ...row, ...completedFields(event.data) };
    case 'RenderFailed':
      return { ...row, ...failedFields(event.data) };
    case 'WebhookDeliveryFailed':
    case 'WebhookDelivered':
    case 'WebhookAbandoned':
      return { ...row, webhook: webhookAfter(row.webhook ?? null, event) };
    case 'RenderProgressed':
      return row.status === 'pending' ? { ...row, ...progressedFields({ framesDone: row.framesDone ?? null }, event.data) } : row;
    case 'ResultDeleted':
      return { ...row, deleted: true };
    default:
      return event satisfies never;
  }
};

/**
 * Deleting the result that stored a file deletes the file: every result of the organization that
 * shares its storage key (the cache hits that reused it, and itself) loses the file. The rows are
 * found by storage key, since no event of the deleted request names the hits.
 */
export const sharedFileDeletion = (event: RecordedEvent<RenderEvent>, deleted: ResultRow | null) =>
  event.type === 'ResultDeleted' && deleted !== null && !deleted.cached && deleted.storageKey !== null
    ? [{ where: { orgId: deleted.orgId, storageKey: deleted.storageKey } }]
    : [];

export const withFileDeleted = (row: ResultRow | null): ResultRow | null => (row === null || row.fileDeleted ? row : { ...row, fileDeleted: true });

export const resultsProjection: DocumentProjection<RenderEvent> = {
  name: 'results',
  canHandle: isRenderEvent,
  folds: [
    fold<RenderEvent, ResultRow>({
      entity: ResultRow,
      documents: (event) => [event.data.requestId],
      evolve: evolveResult,
    }),
    fold<RenderEvent, ResultRow, ResultRow>({
      entity: ResultRow,
      // Read after the first fold: the deleted row keeps the storage key and `cached` it had.
      related: { entity: ResultRow, id: (event) => (event.type === 'ResultDeleted' ? event.data.requestId : null) },
      documents: sharedFileDeletion,
      evolve: withFileDeleted,
    }),
  ],
};
