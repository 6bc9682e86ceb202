import { proxyActivities } from '@temporalio/workflow';
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
