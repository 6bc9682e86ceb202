import { assertNever, type Decider } from '../shared/decider.js';
import { conflict, notFound } from '../shared/errors.js';
import type { BatchCommand, CancelBatch, EndBatch, RefuseBatchRow, RequestBatch } from './batch-commands.js';
import { isBatchEvent, type BatchCancelled, type BatchEnded, type BatchEvent, type BatchRequested, type BatchRowRefused } from './batch-events.js';
import { evolveBatch, initialBatch, type Batch } from './batch.js';

/** The most rows one batch may have. */
export const MAX_BATCH_ROWS = 10_000;

const decideRequest = ({ data }: RequestBatch, state: Batch): BatchRequested[] => {
  if (state.status !== 'absent') throw conflict(`Batch ${data.batchId} already exists`);
  return [{ type: 'BatchRequested', data }];
};

/** Another organization's batch is reported exactly like a missing one. Cancelling twice is a no-op. */
const decideCancel = ({ data }: CancelBatch, state: Batch): BatchCancelled[] => {
  if (state.status === 'absent' || state.request.orgId !== data.orgId) throw notFound('Batch');
  if (state.status === 'cancelled') return [];
  if (state.status === 'ended') throw conflict(`Batch ${data.batchId} has ended; there is nothing left to cancel`);
  return [{ type: 'BatchCancelled', data: { batchId: data.batchId, cancelledAt: data.now } }];
};

/** A row is refused once, however often its turn is replayed. */
const decideRefuseRow = ({ data }: RefuseBatchRow, state: Batch): BatchRowRefused[] => {
  if (state.status === 'absent') throw notFound('Batch');
  if (state.refused.has(data.row)) return [];
  const { now, ...refused } = data;
  return [{ type: 'BatchRowRefused', data: { ...refused, refusedAt: now } }];
};

/** A batch ends once, whichever replay of its workflow says so first. */
const decideEnd = ({ data }: EndBatch, state: Batch): BatchEnded[] => {
  if (state.status === 'absent') throw notFound('Batch');
  if (state.status === 'ended') return [];
  const { now, ...ended } = data;
  return [{ type: 'BatchEnded', data: { ...ended, endedAt: now } }];
};

export const decideBatch = (command: BatchCommand, state: Batch): BatchEvent[] => {
  switch (command.type) {
    case 'RequestBatch':
      return decideRequest(command, state);
    case 'RefuseBatchRow':
      return decideRefuseRow(command, state);
    case 'CancelBatch':
      return decideCancel(command, state);
    case 'EndBatch':
      return decideEnd(command, state);
    default:
      return assertNever(command);
  }
};

export const batchDecider: Decider<Batch, BatchCommand, BatchEvent> = {
  decide: decideBatch,
  evolve: evolveBatch,
  initialState: initialBatch,
  isEvent: isBatchEvent,
};
