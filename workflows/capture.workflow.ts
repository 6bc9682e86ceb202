import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { CaptureActivities } from './capture.activities.js';
import { produceFile, type RenderWorkflowInput, type RenderWorkflowResult } from './render.workflow.js';

/*
 * The capture bounds its own page (navigation, settling, capture); a page that ran out of time
 * (`failed`) would only run out again, so only a lost browser or worker is worth another attempt.
 */
const capturing = proxyActivities<CaptureActivities>({
  startToCloseTimeout: '2m',
  heartbeatTimeout: '10s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 3, nonRetryableErrorTypes: ['failed'] },
});

/**
 * workflowId = requestId. A screenshot or PDF of a web page, as renderWorkflow does a template:
 * charge, capture and store, record, tell the webhook; refund when the page cannot be captured.
 */
export async function captureWorkflow(input: RenderWorkflowInput): Promise<RenderWorkflowResult> {
  return produceFile(input, () => capturing.produceCapture({ requestId: input.requestId }));
}

/*
 * A client waiting for its capture gets the short path of a synchronous render: charge, capture and
 * record as local activities in the workflow's first task (8 history events instead of 13, no
 * task-queue round trip between them). A worker lost mid-capture has the task timed out and replayed
 * elsewhere, where charging and recording are idempotent by request id. Retried as capturing is.
 */
const capturingNow = proxyLocalActivities<CaptureActivities>({
  startToCloseTimeout: '2m',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 3, nonRetryableErrorTypes: ['failed'] },
});

/** workflowId = requestId. The same steps for a client that waits: every step a local activity, in one workflow task. */
export async function syncCaptureWorkflow(input: RenderWorkflowInput): Promise<RenderWorkflowResult> {
  return produceFile(input, () => capturingNow.produceCaptureNow({ requestId: input.requestId }));
}
