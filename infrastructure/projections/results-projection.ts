import { evolveResult, startsResult } from '../../application/results/result-view.js';
import { isRenderEvent, type RenderEvent } from '../../domain/renders/render-events.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import { ResultRow } from '../read-models/entities.js';
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

export const resultsProjection: DocumentProjection<RenderEvent> = {
  name: 'results',
  canHandle: isRenderEvent,
  folds: [
    fold<RenderEvent, ResultRow>({
      entity: ResultRow,
      documents: (event) => [event.data.requestId],
      makesAnew: startsResult,
      evolve: evolveResultRow,
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
