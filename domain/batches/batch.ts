import type { BatchEvent, BatchRequested, BatchCounts } from './batch-events.js';

export type BatchStatus = 'pending' | 'cancelled' | 'ended';

/** A batch as its stream tells it: absent, or what it was asked with and how far its life went. */
export type Batch =
  | { readonly status: 'absent' }
  | {
      readonly status: BatchStatus;
      readonly request: BatchRequested['data'];
      readonly cancelledAt: string | null;
      /** Rows refused when their turn came, by row number, with the reason. */
      readonly refused: ReadonlyMap<number, string>;
      readonly ended: (BatchCounts & { readonly mergedStorageKey: string | null; readonly endedAt: string }) | null;
    };

export const initialBatch = (): Batch => ({ status: 'absent' });

export const evolveBatch = (state: Batch, event: BatchEvent): Batch => {
  switch (event.type) {
    case 'BatchRequested':
      return { status: 'pending', request: event.data, cancelledAt: null, refused: new Map(), ended: null };
    case 'BatchRowRefused':
      return state.status === 'absent' ? state : { ...state, refused: new Map([...state.refused, [event.data.row, event.data.reason]]) };
    case 'BatchCancelled':
      return state.status === 'pending' ? { ...state, status: 'cancelled', cancelledAt: event.data.cancelledAt } : state;
    case 'BatchEnded': {
      if (state.status === 'absent') return state;
      const { batchId: _batchId, endedAt, mergedStorageKey, ...counts } = event.data;
      return { ...state, status: 'ended', ended: { ...counts, mergedStorageKey, endedAt } };
    }
  }
};
