import { evolveResult, startsResult } from '../../application/results/result-view.js';
import { isBatchEvent, type BatchEvent } from '../../domain/batches/batch-events.js';
import { isRenderEvent, type RenderEvent } from '../../domain/renders/render-events.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import { BatchRow, ResultRow } from '../read-models/entities.js';
import { evolveBatchRow } from './batches-fold.js';
import { fold, type DocumentProjection } from './document-projection.js';

/** A request's result row, from its own stream: the result fold's fields, and whether another result's deletion took its file. */
export const evolveResultRow = (row: ResultRow | null, event: RecordedEvent<RenderEvent>): ResultRow | null => {
  const result = evolveResult(row, event);
  if (result === row) return row;
  return result === null ? null : { fileDeleted: false, ...result };
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

type ResultsEvent = RenderEvent | BatchEvent;

const isResultsEvent = (event: RecordedEvent): event is RecordedEvent<ResultsEvent> => isRenderEvent(event) || isBatchEvent(event);

/** Renders and batches, the renders' rows folded by the first two folds, the batches' by the third. */
export const resultsProjection: DocumentProjection<ResultsEvent> = {
  name: 'results',
  canHandle: isResultsEvent,
  folds: [
    fold<ResultsEvent, ResultRow>({
      entity: ResultRow,
      documents: (event) => (isRenderEvent(event) ? [event.data.requestId] : []),
      makesAnew: (event) => isRenderEvent(event) && startsResult(event),
      evolve: (row, event) => (isRenderEvent(event) ? evolveResultRow(row, event) : row),
    }),
    fold<ResultsEvent, ResultRow, ResultRow>({
      entity: ResultRow,
      // Read after the first fold: the deleted row keeps the storage key and `cached` it had.
      related: { entity: ResultRow, id: (event) => (event.type === 'ResultDeleted' ? event.data.requestId : null) },
      documents: (event, deleted) => (isRenderEvent(event) ? sharedFileDeletion(event, deleted) : []),
      evolve: withFileDeleted,
    }),
    fold<ResultsEvent, BatchRow>({
      entity: BatchRow,
      documents: (event) => (isBatchEvent(event) ? [event.data.batchId] : []),
      evolve: (row, event) => (isBatchEvent(event) ? evolveBatchRow(row, event) : row),
    }),
  ],
};
