import { patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { FailedOutcome, RenderOutcome } from '../application/ports/render-orchestrator.js';
import type { StoredFile } from '../domain/renders/render-events.js';
import type { RenderActivities } from './render.activities.js';
import { deliverOutcome } from './deliver-outcome.js';
import { BOOKKEEPING } from './activity-options.js';
import { failedOutcomeOf } from './failures.js';

/** The steps of a request that produces one file, each done by an activity (or, in unit tests, by the fake orchestrator's stubs). */
export interface SequenceSteps {
  charge(): Promise<void>;
  /** Makes the file and stores it. */
  produce(): Promise<StoredFile>;
  refund(): Promise<void>;
  /** Each returns the log position of what it recorded. */
  recordFailure(failure: FailedOutcome): Promise<number | null>;
  recordCompletion(file: StoredFile): Promise<number | null>;
  /** Tells the request's webhook how it ended, where it has one. */
  tellWebhook(outcome: RenderOutcome['status']): Promise<void>;
}

/**
 * The life of any request that produces one file (a render, a capture, a video): charge, produce
 * and store, record; refund when the file cannot be made; then tell the webhook. A failure ends
 * the request as its type says (failures.ts): the request's fault, no credits, no room, or failed.
 * It calls nothing of Temporal's workflow API itself, so the fake orchestrator of unit tests runs
 * this very function over its stubbed steps.
 */
export async function runRequestSequence(steps: SequenceSteps): Promise<RenderOutcome> {
  try {
    await steps.charge();
  } catch (error) {
    const failed = failedOutcomeOf(error);
    const position = await steps.recordFailure(failed);
    await steps.tellWebhook('failed');
    return { ...failed, position };
  }

  let file;
  try {
    file = await steps.produce();
  } catch (error) {
    const failed = failedOutcomeOf(error);
    await steps.refund();
    const position = await steps.recordFailure(failed);
    await steps.tellWebhook('failed');
    return { ...failed, position };
  }
  const position = await steps.recordCompletion(file);

  await steps.tellWebhook('done');
  // The file as the activity stored it: a caller serves it from here rather than predicting where it went.
  return { status: 'done', file, position };
}

export interface RenderWorkflowInput {
  readonly requestId: string;
  /** Deliver the outcome to the request's webhookUrl once the file is stored. */
  readonly webhook: boolean;
  /** A batch's row: rendered as a local activity (see renderingRow). Absent in histories from before rows had it. */
  readonly batchRow?: boolean;
}

export type RenderWorkflowResult = RenderOutcome;

const bookkeeping = proxyLocalActivities<RenderActivities>(BOOKKEEPING);

const rendering = proxyActivities<RenderActivities>({
  startToCloseTimeout: '2m',
  heartbeatTimeout: '10s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 3 },
});

/*
 * A client waits for a synchronous render, so it runs as a local activity too: charge, render and
 * record all complete in the workflow's first task, with no task-queue round trip and a handful of
 * history events. Durability holds: nothing is recorded until the task completes, so a worker that
 * dies mid-render has its task timed out and replayed elsewhere from the start, where charging and
 * recording are idempotent by request id. The bound is above the pool's own render deadline.
 */
const renderingNow = proxyLocalActivities<RenderActivities>({
  startToCloseTimeout: '2m',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 3 },
});

/*
 * A batch's row is rendered in the background as a webhook render is, but as a local activity: a
 * batch runs thousands of them, and an activity's round trip through the task queue cost more of the
 * machine per row than the rest of the row's bookkeeping. Local activities cannot heartbeat; a lost
 * worker is noticed by the workflow task's own timeout instead, and the row's steps run again
 * elsewhere, each idempotent by request id. The bound leaves room for produceRender to outlast an
 * outage of its backing services.
 */
const renderingRow = proxyLocalActivities<RenderActivities>({
  startToCloseTimeout: '3m',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 3 },
});

/**
 * A request's steps as this workflow's activities. A client answered at once hears of a failure
 * too; histories recorded before failures were delivered replay without it (Temporal's patching),
 * so workflows in flight during an upgrade go on.
 */
export function produceFile({ requestId, webhook }: RenderWorkflowInput, produce: () => Promise<StoredFile>): Promise<RenderWorkflowResult> {
  return runRequestSequence({
    charge: () => bookkeeping.chargeCredits({ requestId }),
    produce,
    refund: () => bookkeeping.refundCredits({ requestId }),
    recordFailure: (failure) => bookkeeping.recordFailure({ requestId, ...failure }),
    recordCompletion: (file) => bookkeeping.recordCompletion({ requestId, file }),
    async tellWebhook(outcome) {
      if (webhook && (outcome === 'done' || patched('webhook-on-failure'))) await deliverOutcome(requestId);
    },
  });
}

/**
 * workflowId = requestId. Charge, render and store, record; refund when the render cannot be made;
 * then tell the webhook. For renders answered by webhook, where the render is a heartbeating
 * activity, and for a batch's rows, where it is a local one.
 */
export async function renderWorkflow(input: RenderWorkflowInput): Promise<RenderWorkflowResult> {
  const { requestId } = input;
  return produceFile(input, () => (input.batchRow === true ? renderingRow : rendering).produceRender({ requestId }));
}

/**
 * workflowId = requestId. A render whose client waits on an open connection, from request to answer:
 *
 * 0. Render ahead (before this workflow runs). The process that accepts the request and will run
 *    this workflow's first task (started eagerly: the task comes back with the start, to that
 *    process's own worker) begins rendering as it records the request. Nothing durable happens
 *    there: a crash leaves a render thrown away, and a request whose workflow never started is failed
 *    uncharged by the pending repair (application/renders/pending-repair.ts).
 * 1. Charge (local activity).
 * 2. produceRenderNow (local activity): takes the render begun ahead, or renders if there is none
 *    (another worker, a retry), and stores the file.
 * 3. Record the completion (local activity); it returns once this process's read models show it.
 *    Or, when 1 or 2 failed: refund (after 2 only) and record the failure.
 * 4. The workflow's result is the caller's answer: the API waits for it through Temporal.
 *
 * All in one workflow task, 8 history events. A worker lost mid-task has the task timed out and run
 * again from 1 elsewhere, where charging and recording are idempotent by request id
 * (test/e2e/crash-recovery.e2e.test.ts kills the process while 2 waits for the render begun ahead).
 * Temporal's "early return" (Update-with-Start) was measured against this shape and cost more at one
 * client and at eight (docs/benchmarks.md, "The render's protocol").
 */
export async function syncRenderWorkflow(input: RenderWorkflowInput): Promise<RenderWorkflowResult> {
  return produceFile(input, () => renderingNow.produceRenderNow({ requestId: input.requestId }));
}
