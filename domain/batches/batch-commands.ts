import type { BatchCounts, BatchRequested } from './batch-events.js';

export interface RequestBatch {
  readonly type: 'RequestBatch';
  readonly data: BatchRequested['data'];
}

export interface CancelBatch {
  readonly type: 'CancelBatch';
  readonly data: { readonly batchId: string; readonly orgId: string; readonly now: string };
}

export interface EndBatch {
  readonly type: 'EndBatch';
  readonly data: BatchCounts & { readonly batchId: string; readonly mergedStorageKey: string | null; readonly now: string };
}

export interface RefuseBatchRow {
  readonly type: 'RefuseBatchRow';
  readonly data: { readonly batchId: string; readonly row: number; readonly requestId: string; readonly reason: string; readonly now: string };
}

export type BatchCommand = RequestBatch | RefuseBatchRow | CancelBatch | EndBatch;
