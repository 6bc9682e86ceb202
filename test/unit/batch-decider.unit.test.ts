import { describe, expect, it } from 'vitest';
import { rowRequestId } from '../../application/batches/batch-rows.js';
import { batchDecider } from '../../domain/batches/batch-decider.js';
import type { BatchEvent, BatchRequested } from '../../domain/batches/batch-events.js';
import { deciderSpec } from '../support/decider-spec.js';

const spec = deciderSpec(batchDecider);
const now = '2026-11-28T10:00:00.000Z';
const request: BatchRequested['data'] = {
  batchId: 'b1',
  orgId: 'org-a',
  name: 'Catalogue',
  templateId: 't1',
  templateVersion: 2,
  outputFormat: 'png',
  total: 3,
  rows: { storageKey: 'org-a/batches/b1/rows.jsonl', sha256: 'a'.repeat(64), bytes: 30 },
  credits: 3,
  cache: true,
  webhookUrl: null,
  merge: false,
  requestedAt: now,
};
const requested: BatchEvent = { type: 'BatchRequested', data: request };
const cancelled: BatchEvent = { type: 'BatchCancelled', data: { batchId: 'b1', cancelledAt: now } };
const counts = { done: 2, failed: 1, cached: 0, skipped: 0, creditsCharged: 2 };
const ended: BatchEvent = { type: 'BatchEnded', data: { batchId: 'b1', ...counts, mergedStorageKey: null, endedAt: now } };
const refused: BatchEvent = { type: 'BatchRowRefused', data: { batchId: 'b1', row: 2, requestId: 'r2', reason: 'Template t1 not found', refusedAt: now } };

const cancel = (orgId = 'org-a') => ({ type: 'CancelBatch' as const, data: { batchId: 'b1', orgId, now } });
const end = { type: 'EndBatch' as const, data: { batchId: 'b1', ...counts, mergedStorageKey: null, now } };
const refuse = { type: 'RefuseBatchRow' as const, data: { batchId: 'b1', row: 2, requestId: 'r2', reason: 'Template t1 not found', now } };

describe('RequestBatch', () => {
  it('records the batch with its stored rows', () => spec.given([]).when({ type: 'RequestBatch', data: request }).then([requested]));
  it('refuses a second batch under the same id', () => spec.given([requested]).when({ type: 'RequestBatch', data: request }).thenThrows('conflict'));
});

describe('CancelBatch', () => {
  it('cancels a batch still taking rows', () => spec.given([requested]).when(cancel()).then([cancelled]));
  it('records nothing for a second cancellation', () => spec.given([requested, cancelled]).when(cancel()).thenNothingHappens());
  it('is a conflict once the batch ended', () => spec.given([requested, ended]).when(cancel()).thenThrows('conflict', /has ended/));
  it("does not find another organization's batch, nor a missing one", () => {
    spec.given([requested]).when(cancel('org-b')).thenThrows('not_found');
    spec.given([]).when(cancel()).thenThrows('not_found');
  });
});

describe('RefuseBatchRow and EndBatch', () => {
  it('refuse a row once, however often its turn is replayed', () => {
    spec.given([requested]).when(refuse).then([refused]);
    spec.given([requested, refused]).when(refuse).thenNothingHappens();
  });
  it('end a batch once, cancelled or not', () => {
    spec.given([requested]).when(end).then([ended]);
    spec.given([requested, cancelled]).when(end).then([ended]);
    spec.given([requested, ended]).when(end).thenNothingHappens();
  });
});

describe('row request ids', () => {
  it('are derived from the batch and the row: the same each time, distinct across rows and batches, shaped as UUIDs', () => {
    expect(rowRequestId('b1', 1)).toBe(rowRequestId('b1', 1));
    const ids = new Set([...Array.from({ length: 1000 }, (_, index) => rowRequestId('b1', index + 1)), rowRequestId('b2', 1)]);
    expect(ids.size).toBe(1001);
    expect(rowRequestId('b1', 7)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
