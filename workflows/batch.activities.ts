import { deliverBatchWebhook, type BatchWebhookDeps } from '../application/batches/notify-batch/batch-webhook.js';
import type { AcceptedRows, BatchSteps } from '../application/batches/run-batch/batch-steps.js';
import type { BatchCounts } from '../domain/batches/batch-events.js';
import { translated } from './failures.js';
import { heartbeating } from './render.activities.js';

export interface BatchRef {
  readonly batchId: string;
}

export const createBatchActivities = (steps: BatchSteps, webhook: BatchWebhookDeps) => ({
  deliverBatchWebhook: ({ batchId }: BatchRef): Promise<'delivered' | 'skipped'> => translated(() => deliverBatchWebhook(webhook, batchId)),
  batchTotal: ({ batchId }: BatchRef): Promise<number> => translated(() => steps.total(batchId)),
  acceptBatchRows: ({ batchId, from, count }: BatchRef & { from: number; count: number }): Promise<AcceptedRows> => translated(() => steps.acceptRows(batchId, from, count)),
  batchRowsPending: ({ batchId, accepted }: BatchRef & { accepted: number }): Promise<number> => translated(() => steps.rowsPending(batchId, accepted)),
  endBatch: ({ batchId, accepted }: BatchRef & { accepted: number }): Promise<BatchCounts> => heartbeating(() => translated(() => steps.end(batchId, accepted))),
});

export type BatchActivities = ReturnType<typeof createBatchActivities>;
