import { proxyActivities } from '@temporalio/workflow';
import { produceFile, type RenderWorkflowInput, type RenderWorkflowResult } from './render.workflow.js';
import type { VideoRenderActivities } from './video-render.activities.js';

/*
 * Thirty seconds of 1080p take minutes on a small, busy machine, so the attempt's own bound is
 * long; a worker that dies is noticed by its missing heartbeats within seconds instead, and the
 * attempt starts again on another worker from the first frame.
 */
const producing = proxyActivities<VideoRenderActivities>({
  startToCloseTimeout: '30m',
  heartbeatTimeout: '10s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 3 },
});

/**
 * workflowId = requestId. An mp4 or webm of a canvas-html template: charge, capture every frame
 * and encode, store, record; refund when the video cannot be made. Clients poll the result.
 */
export async function videoRenderWorkflow(input: RenderWorkflowInput): Promise<RenderWorkflowResult> {
  return produceFile(input, () => producing.produceVideo({ requestId: input.requestId }));
}
