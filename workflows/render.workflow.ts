import { patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { RenderOutcome } from '../application/ports/render-orchestrator.js';
import type { StoredFile } from '../domain/renders/render-events.js';
import type { RenderActivities } from './render.activities.js';
import { deliverOutcome } from './deliver-outcome.js';
import { BOOKKEEPING } from './activity-options.js';
import { runRequestSequence } from './request-sequence.js';

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

/** workflowId = requestId. The same steps for a client that waits: every step a local activity, in one workflow task. */
export async function syncRenderWorkflow(input: RenderWorkflowInput): Promise<RenderWorkflowResult> {
  return produceFile(input, () => renderingNow.produceRenderNow({ requestId: input.requestId }));
}
