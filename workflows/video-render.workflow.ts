import { CancellationScope, patched, proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { StoredFile } from '../domain/renders/render-events.js';
import { produceFile, type RenderWorkflowInput, type RenderWorkflowResult } from './render.workflow.js';
import type { VideoRenderActivities } from './video-render.activities.js';
import { BOOKKEEPING } from './activity-options.js';

/** The task queue of video work: each worker takes only as many videos or segments as its cores can capture. */
export const videoTaskQueueOf = (taskQueue: string) => `${taskQueue}-video`;

/*
 * A long 1080p video renders far slower than real time on a small, busy machine, so the attempt's
 * own bound is long; a worker that dies is noticed by its missing heartbeats within seconds instead,
 * and the attempt starts again on another worker from the first frame of what it was rendering.
 */
const videoWork = {
  startToCloseTimeout: '30m',
  heartbeatTimeout: '10s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 3 },
} as const;

/** Videos accepted before segments existed run as they started, on the main queue. */
const producingOnMainQueue = proxyActivities<VideoRenderActivities>(videoWork);

const bookkeeping = proxyLocalActivities<VideoRenderActivities>(BOOKKEEPING);

/**
 * A long video's segments render at once on whichever workers are free, each its own activity
 * retried on its own, so a lost worker costs the segment it held, not the video. The first
 * failure that outlives its retries cancels the other segments. The joined file is the result.
 */
const produceVideo = async (requestId: string): Promise<StoredFile> => {
  if (!patched('video-segments')) return producingOnMainQueue.produceVideo({ requestId });
  const producing = proxyActivities<VideoRenderActivities>({ ...videoWork, taskQueue: videoTaskQueueOf(workflowInfo().taskQueue) });
  const { segments } = await bookkeeping.planVideo({ requestId });
  if (segments.length === 1) return producing.produceVideo({ requestId });

  try {
    await CancellationScope.cancellable(async () => {
      const scope = CancellationScope.current();
      await Promise.all(
        segments.map(async (segment, index) => {
          try {
            await producing.produceVideoSegment({ requestId, index, segment });
          } catch (error) {
            scope.cancel();
            throw error;
          }
        }),
      );
    });
    return await producing.joinVideoSegments({ requestId, segments: segments.length });
  } catch (error) {
    // Segments are only a means to the file: none may outlive a video that failed.
    await CancellationScope.nonCancellable(() => producing.discardVideoSegments({ requestId, segments: segments.length })).catch(() => undefined);
    throw error;
  }
};

/**
 * workflowId = requestId. An mp4 or webm of a canvas-html template: charge, capture every frame
 * and encode (in segments across workers when the video is long), store, record; refund when the
 * video cannot be made. Clients poll the result.
 */
export async function videoRenderWorkflow(input: RenderWorkflowInput): Promise<RenderWorkflowResult> {
  return produceFile(input, () => produceVideo(input.requestId));
}
