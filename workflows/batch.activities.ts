import { setTimeout } from 'node:timers/promises';
import { deliverBatchWebhook, type BatchWebhookDeps } from '../application/batches/notify-batch/batch-webhook.js';
import type { AcceptedRows, BatchSteps } from '../application/batches/run-batch/batch-steps.js';
import type { BatchCounts } from '../domain/batches/batch-events.js';
import { translated } from './failures.js';
import { heartbeating } from './render.activities.js';

export interface BatchRef {
  readonly batchId: string;
}

/** How often a wait for rows to end looks at the read models, and the longest one call waits before its workflow asks again. */
const ENDED_ROWS_POLL_MS = 50;
const ENDED_ROWS_WAIT_MS = 10_000;

export const createBatchActivities = (steps: BatchSteps, webhook: BatchWebhookDeps) => ({
  deliverBatchWebhook: ({ batchId }: BatchRef): Promise<'delivered' | 'skipped'> => translated(() => deliverBatchWebhook(webhook, batchId)),
  batchTotal: ({ batchId }: BatchRef): Promise<number> => translated(() => steps.total(batchId)),
  /** `start`: the step starts the rows' renders itself (absent when a batch from before that asks). */
  acceptBatchRows: ({ batchId, from, count, start = false }: BatchRef & { from: number; count: number; start?: boolean }): Promise<AcceptedRows> =>
    translated(() => steps.acceptRows(batchId, from, count, start)),
  /**
   * Of these rows' requests, those still rendering, once fewer than `below` are (or a while has
   * passed): the batch takes its next rows as soon as room frees, without a workflow task per look.
   */
  batchRowsRenderingBelow: ({ batchId, requestIds, below }: BatchRef & { requestIds: readonly string[]; below: number }): Promise<string[]> =>
    translated(async () => {
      const giveUpAt = Date.now() + ENDED_ROWS_WAIT_MS;
      let rendering = [...requestIds];
      while (rendering.length >= below && Date.now() < giveUpAt) {
        await setTimeout(ENDED_ROWS_POLL_MS);
        rendering = await steps.rowsRendering(batchId, rendering);
      }
      return rendering;
    }),
  batchRowsPending: ({ batchId, accepted }: BatchRef & { accepted: number }): Promise<number> => translated(() => steps.rowsPending(batchId, accepted)),
  endBatch: ({ batchId, accepted }: BatchRef & { accepted: number }): Promise<BatchCounts> => heartbeating(() => translated(() => steps.end(batchId, accepted))),
});

export type BatchActivities = ReturnType<typeof createBatchActivities>;
