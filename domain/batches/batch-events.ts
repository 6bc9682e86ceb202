import { eventGuard, type DomainEvent } from '../shared/events.js';
import type { OutputFormat } from '../templates/template-settings.js';

const BATCH_STREAM_PREFIX = 'batch-';

export const batchStream = (batchId: string) => `${BATCH_STREAM_PREFIX}${batchId}`;

/** The batch a stream belongs to; null for any other stream. */
export const batchIdOfStream = (streamName: string): string | null =>
  streamName.startsWith(BATCH_STREAM_PREFIX) ? streamName.slice(BATCH_STREAM_PREFIX.length) : null;

/**
 * The rows of a batch, stored as a file beside the results (one JSON object per line, in row order)
 * rather than carried in an event: an event stays small whatever the batch, and the digest ties the
 * file to the log, so an audit can tell whether the rows are the ones the batch was asked with.
 */
export interface StoredRows {
  readonly storageKey: string;
  /** Hex SHA-256 of the file's bytes. */
  readonly sha256: string;
  readonly bytes: number;
}

export type BatchRequested = DomainEvent<
  'BatchRequested',
  {
    batchId: string;
    orgId: string;
    /** Becomes each row's batchName: results list under it. */
    name: string;
    templateId: string;
    /** The template version every row draws, pinned when the batch is accepted. */
    templateVersion: number | null;
    outputFormat: OutputFormat;
    total: number;
    rows: StoredRows;
    /** The credits the rows cost if none is a cache hit: what the account had to hold at submission. */
    credits: number;
    cache: boolean;
    /** Told `batch.completed` with the counts when the batch ends. */
    webhookUrl: string | null;
    /** One PDF of every row in order, besides the ZIP. */
    merge: boolean;
    requestedAt: string;
  }
>;

export type BatchCancelled = DomainEvent<'BatchCancelled', { batchId: string; cancelledAt: string }>;

/** The counts of a batch's rows once none is left to run. */
export interface BatchCounts {
  readonly done: number;
  readonly failed: number;
  readonly cached: number;
  /** Rows never started because the batch was cancelled. */
  readonly skipped: number;
  readonly creditsCharged: number;
}

export type BatchEnded = DomainEvent<
  'BatchEnded',
  BatchCounts & {
    batchId: string;
    /** The merged PDF, when the batch asked for one and any row made a file. */
    mergedStorageKey: string | null;
    endedAt: string;
  }
>;

/**
 * A row that could not become a render when its turn came (its template was deleted since, or no
 * longer takes its data): it fails alone, charged nothing, with the reason.
 */
export type BatchRowRefused = DomainEvent<'BatchRowRefused', { batchId: string; row: number; requestId: string; reason: string; refusedAt: string }>;

export type BatchEvent = BatchRequested | BatchRowRefused | BatchCancelled | BatchEnded;

export const isBatchEvent = eventGuard<BatchEvent>({ BatchRequested: true, BatchRowRefused: true, BatchCancelled: true, BatchEnded: true });
