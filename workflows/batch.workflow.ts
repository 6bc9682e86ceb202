import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { continueAsNew, log, ParentClosePolicy, proxyActivities, proxyLocalActivities, sleep, startChild, WorkflowIdReusePolicy } from '@temporalio/workflow';
import type { BatchActivities } from './batch.activities.js';
import { renderWorkflow } from './render.workflow.js';

export interface BatchWorkflowInput {
  readonly batchId: string;
  /** The first row (numbered from 1) this run of the workflow accepts; earlier runs accepted the rows before it. */
  readonly fromRow?: number;
  /**
   * The step that accepts rows starts their render workflows, which the batch then follows through
   * the read models (see renderRowsStarted). Absent in batches started before: those keep their
   * rows as child workflows (renderRowsAsChildren), so their histories replay as they ran.
   */
  readonly rowsStartedBySteps?: boolean;
  /** Rows an earlier run of this batch left rendering when it continued as new. */
  readonly rendering?: readonly string[];
}

/**
 * Rows made requests by one activity, once that many renders can start at once: a row's request is
 * recorded only when its render starts right after, so no recorded row waits long enough for the
 * pending-request repair to take it for one whose workflow never started.
 */
const ROWS_PER_STEP = 4;
/** Rows one run of the workflow takes before it continues as new, which keeps each history small. */
const ROWS_PER_RUN = 400;
/** Renders of one batch running at once; the workers' render pools admit them beside everything else. */
const RENDERS_AT_ONCE = 16;

/*
 * A batch's own steps read and append a few events: a worker killed while holding one is noticed
 * when this timeout passes, and every row of the batch waits for it meanwhile, so it is short.
 */
const steps = proxyActivities<BatchActivities>({
  startToCloseTimeout: '20s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '30s' },
});

/**
 * Where a batch's rows' workflows are started by its steps, accepting rows and waiting for room run
 * as local activities: no task-queue round trip between a row's end and the next row's start. Only
 * batches started so run them (rowsStartedBySteps), so no recorded history meets them.
 */
const rowSteps = proxyLocalActivities<BatchActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '30s' },
});

/**
 * The end merges every row's PDF when asked to, which takes as long as the batch is big; it
 * heartbeats meanwhile, so a lost worker is noticed within the heartbeat timeout all the same.
 */
const ending = proxyActivities<BatchActivities>({
  startToCloseTimeout: '30m',
  heartbeatTimeout: '20s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '30s' },
});

/** The batch's webhook, retried with a backoff for about a day before it is given up. */
const notify = proxyActivities<BatchActivities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '1h', maximumAttempts: 30 },
});

/**
 * A row's render, as its own render workflow under its request id. An id that ran before (a row
 * an earlier run of this batch started) is refused by the reuse policy rather than run again: the
 * row is rendered, stored and charged once, and the wait for stragglers below sees it end. A row's
 * workflow records its own outcome, and the pending-request repair fails one that never could, so
 * no row's trouble stops the others.
 */
const renderRow = async (requestId: string): Promise<void> => {
  try {
    const child = await startChild(renderWorkflow, {
      workflowId: requestId,
      args: [{ requestId, webhook: false }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
    await child.result();
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) log.warn('a row of the batch ended abnormally', { requestId, error: String(error) });
  }
};

/** A batch's workflow id: apart from request ids, which its rows' workflows take. */
export const batchWorkflowId = (batchId: string) => `batch-${batchId}`;

/**
 * workflowId = batch-<batchId>. Makes each row a render request of its own and renders them, a few
 * at once, continuing as new every few hundred rows; stops taking rows once the batch is cancelled;
 * waits for every row it started to end, then counts them, records the batch's end and tells its
 * webhookUrl (batch.completed).
 */
export async function batchWorkflow(input: BatchWorkflowInput): Promise<void> {
  const { batchId } = input;
  const accepted = input.rowsStartedBySteps === true ? await renderRowsStarted(input) : await renderRowsAsChildren(input);
  // Rows an earlier run of this batch started and left running, and results not yet in the read models.
  while ((await steps.batchRowsPending({ batchId, accepted })) > 0) await sleep('2s');
  await ending.endBatch({ batchId, accepted });
  try {
    await notify.deliverBatchWebhook({ batchId });
  } catch (error) {
    // The batch ended all the same; its receiver can read it with GET /api/v2/batches/{id}.
    log.warn('the batch webhook was given up', { batchId, error: String(error) });
  }
}

/**
 * Accepts rows while fewer than RENDERS_AT_ONCE render, the accepting step starting each row's
 * render workflow itself; the rows that still render are asked of the read models. A row costs the
 * Temporal server the start of its workflow and nothing in the batch's history, where a child
 * workflow cost three events there and the workflow tasks that took them in. Returns how many rows
 * were accepted: all of them, or those before the batch was cancelled.
 */
async function renderRowsStarted({ batchId, fromRow = 1, rendering: before = [] }: BatchWorkflowInput): Promise<number> {
  const total = await steps.batchTotal({ batchId });
  let rendering = [...before];
  let row = fromRow;
  while (row <= total) {
    if (row - fromRow >= ROWS_PER_RUN) await continueAsNew<typeof batchWorkflow>({ batchId, fromRow: row, rowsStartedBySteps: true, rendering });
    const room = RENDERS_AT_ONCE - rendering.length;
    if (room < ROWS_PER_STEP) {
      rendering = await rowSteps.batchRowsRenderingBelow({ batchId, requestIds: rendering, below: RENDERS_AT_ONCE - ROWS_PER_STEP + 1 });
      continue;
    }
    const count = Math.min(room, total - row + 1, ROWS_PER_RUN - (row - fromRow));
    const accepted = await rowSteps.acceptBatchRows({ batchId, from: row, count, start: true });
    if (accepted.cancelled) break;
    rendering.push(...accepted.toRender);
    row += count;
  }
  while (rendering.length > 0) rendering = await rowSteps.batchRowsRenderingBelow({ batchId, requestIds: rendering, below: 1 });
  return row - 1;
}

/** The rows of a batch started before steps started them: each a child workflow, awaited. */
async function renderRowsAsChildren({ batchId, fromRow = 1 }: BatchWorkflowInput): Promise<number> {
  const total = await steps.batchTotal({ batchId });
  const running = new Set<Promise<void>>();
  let row = fromRow;
  while (row <= total) {
    if (row - fromRow >= ROWS_PER_RUN) {
      await Promise.all(running);
      await continueAsNew<typeof batchWorkflow>({ batchId, fromRow: row });
    }
    const count = Math.min(ROWS_PER_STEP, total - row + 1);
    while (running.size > RENDERS_AT_ONCE - count) await Promise.race(running);
    const accepted = await steps.acceptBatchRows({ batchId, from: row, count });
    if (accepted.cancelled) break;
    for (const requestId of accepted.toRender) {
      const render: Promise<void> = renderRow(requestId).finally(() => running.delete(render));
      running.add(render);
    }
    row += count;
  }
  await Promise.all(running);
  // Rows before `row` were accepted; the rest never will be (the batch was cancelled).
  return row - 1;
}
