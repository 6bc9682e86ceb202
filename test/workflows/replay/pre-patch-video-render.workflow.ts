/*
 * workflows/video-render.workflow.ts as it was at 520fa49, the parent of 2c9d617, which added the
 * 'video-segments' patch: a video is one activity on the main task queue. Only the import paths
 * differ; produceFile is today's, which is what it was at 520fa49 (git diff 520fa49 -- workflows/render.workflow.ts).
 * scripts/record-workflow-histories.ts runs it, under its production workflow type, to record the
 * history of a video started before the patch. Do not bring it up to date: it is the old code on purpose.
 */
import { proxyActivities } from '@temporalio/workflow';
import { produceFile, type RenderWorkflowInput, type RenderWorkflowResult } from '../../../workflows/render.workflow.js';
import type { VideoRenderActivities } from '../../../workflows/video-render.activities.js';

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
