import { batchIdOfStream, isBatchEvent, type BatchCounts, type BatchEvent, type StoredRows } from '../../domain/batches/batch-events.js';
import { evolveBatch, initialBatch, type BatchStatus } from '../../domain/batches/batch.js';
import { asRequestedAndCompleted, type RenderEvent } from '../../domain/renders/render-events.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import { rowRequestId } from '../batches/batch-rows.js';

/** The batch row a render request was made for: a row's request is a render of its own, named after the batch and the row. */
export interface BatchRowRef {
  readonly id: string;
  readonly name: string;
  /** Numbered from 1, in the order of the rows the batch was asked with. */
  readonly row: number;
}

/**
 * Which batch row each render request of an organization's log was made for, as the log is read in
 * order. A row's request carries the batch's name and, as its correlation id, the batch's id; its
 * request id is derived from both (`rowRequestId`), which is what ties it to its row. The request
 * ids of a batch's rows are worked out once, when the first of them is met, and forgotten when the
 * batch ends (no row is requested after that), so memory holds only the batches still running.
 */
export const createBatchRowIndex = () => {
  const batches = new Map<string, { readonly name: string; readonly total: number }>();
  const rows = new Map<string, ReadonlyMap<string, number>>();

  const rowsOf = (batchId: string, total: number): ReadonlyMap<string, number> => {
    const known = rows.get(batchId);
    if (known) return known;
    const made = new Map(Array.from({ length: total }, (_, index) => [rowRequestId(batchId, index + 1), index + 1] as const));
    rows.set(batchId, made);
    return made;
  };

  return {
    /** Takes note of batches being requested and ended; every other event passes. */
    apply(event: RecordedEvent): void {
      if (batchIdOfStream(event.streamName) === null || !isBatchEvent(event)) return;
      if (event.type === 'BatchRequested') batches.set(event.data.batchId, { name: event.data.name, total: event.data.total });
      else if (event.type === 'BatchEnded') rows.delete(event.data.batchId);
    },
    /** The batch row a request event (RenderRequested or RenderServedFromCache) was made for; null for a request of its own. */
    rowOf(event: RecordedEvent<RenderEvent>): BatchRowRef | null {
      const requested = event.type === 'RenderServedFromCache' ? asRequestedAndCompleted(event)[0] : event;
      if (requested.type !== 'RenderRequested' || requested.data.batchName === null) return null;
      const batchId = requested.metadata.correlationId;
      const batch = batches.get(batchId);
      if (!batch) return null;
      const row = rowsOf(batchId, batch.total).get(requested.data.requestId);
      return row === undefined ? null : { id: batchId, name: batch.name, row };
    },
  };
};

/** A change in a batch's life, with who made it: the API key id, or "system" for the batch's own workflow. */
export interface BatchStateChange {
  /** requested, row refused, cancelled, ended. */
  readonly state: string;
  readonly at: string;
  readonly actor: string;
  readonly detail?: Record<string, unknown>;
}

/** One batch as its own stream tells it: what it was asked with, the rows refused, its cancellation and the counts it ended with. */
export interface BatchHistory {
  readonly batchId: string;
  readonly orgId: string;
  readonly name: string;
  /** Who asked: the API key id from the request event's envelope. */
  readonly actor: string;
  readonly correlationId: string;
  readonly requestedAt: string;
  /** `version` is the version every row draws, pinned when the batch was accepted; null: the published one at each row's turn. */
  readonly template: { readonly id: string; readonly version: number | null };
  readonly outputFormat: string;
  readonly total: number;
  /** What the rows cost if none is a cache hit: what the account had to hold when the batch was accepted. */
  readonly credits: number;
  readonly cache: boolean;
  readonly merge: boolean;
  readonly webhookUrl: string | null;
  /** The stored rows and their SHA-256: whether the rows in storage are the ones the batch was asked with. */
  readonly rows: StoredRows;
  readonly status: BatchStatus;
  readonly states: readonly BatchStateChange[];
  /** Rows that could not become a render at their turn (charged nothing), by row number. */
  readonly refused: readonly { readonly row: number; readonly requestId: string; readonly reason: string; readonly at: string }[];
  readonly cancelledAt: string | null;
  /** The counts recorded when no row was left to run; null while it runs. */
  readonly ended: (BatchCounts & { readonly mergedStorageKey: string | null; readonly endedAt: string }) | null;
  /** Global log position of the batch's request. */
  readonly position: number;
}

/** The history of a batch from its stream's events; null when it holds no request. */
export const batchHistory = (events: readonly RecordedEvent<BatchEvent>[]): BatchHistory | null => {
  let state = initialBatch();
  let requested: RecordedEvent<BatchEvent> | null = null;
  const states: BatchStateChange[] = [];
  const refused: { row: number; requestId: string; reason: string; at: string }[] = [];
  for (const event of events) {
    const before = state.status;
    state = evolveBatch(state, event);
    const { actor } = event.metadata;
    switch (event.type) {
      case 'BatchRequested':
        requested ??= event;
        states.push({ state: 'requested', at: event.data.requestedAt, actor });
        break;
      case 'BatchRowRefused': {
        const { row, requestId, reason, refusedAt } = event.data;
        refused.push({ row, requestId, reason, at: refusedAt });
        states.push({ state: 'row refused', at: refusedAt, actor, detail: { row, requestId, reason } });
        break;
      }
      case 'BatchCancelled':
        // Cancelling again, or after the end, changes nothing and is no state change.
        if (before === 'pending' && state.status === 'cancelled') states.push({ state: 'cancelled', at: event.data.cancelledAt, actor });
        break;
      case 'BatchEnded': {
        const { batchId: _batchId, endedAt, ...counts } = event.data;
        states.push({ state: 'ended', at: endedAt, actor, detail: counts });
        break;
      }
    }
  }
  if (state.status === 'absent' || !requested) return null;
  const { request } = state;
  return {
    batchId: request.batchId,
    orgId: request.orgId,
    name: request.name,
    actor: requested.metadata.actor,
    correlationId: requested.metadata.correlationId,
    requestedAt: request.requestedAt,
    template: { id: request.templateId, version: request.templateVersion },
    outputFormat: request.outputFormat,
    total: request.total,
    credits: request.credits,
    cache: request.cache,
    merge: request.merge,
    webhookUrl: request.webhookUrl,
    rows: request.rows,
    status: state.status,
    states,
    refused: refused.sort((a, b) => a.row - b.row),
    cancelledAt: state.cancelledAt,
    ended: state.ended,
    position: requested.position,
  };
};
