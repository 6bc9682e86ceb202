import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { RenderActivities } from './render.activities.js';
import { failureOf, type RenderWorkflowResult } from './render.workflow.js';
import type { VideoRenderActivities } from './video-render.activities.js';
import { deliverOutcome } from './webhook-delivery.js';

export interface VideoRenderWorkflowInput {
  readonly requestId: string;
  /** Deliver the outcome to the request's webhookUrl once the file is stored. */
  readonly webhook: boolean;
}

const bookkeeping = proxyLocalActivities<RenderActivities>({
  startToCloseTimeout: '15s',
  retry: { initialInterval: '100ms', backoffCoefficient: 2, maximumInterval: '5s', maximumAttempts: 20 },
});

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
export async function videoRenderWorkflow({ requestId, webhook }: VideoRenderWorkflowInput): Promise<RenderWorkflowResult> {
  try {
    await bookkeeping.chargeCredits({ requestId });
  } catch (error) {
    const { reason, type } = failureOf(error);
    await bookkeeping.recordFailure({ requestId, reason });
    return { status: 'failed', reason, code: type === 'payment_required' ? 'payment_required' : 'render_failed' };
  }

  let file;
  try {
    file = await producing.produceVideo({ requestId });
  } catch (error) {
    const { reason } = failureOf(error);
    await bookkeeping.refundCredits({ requestId });
    await bookkeeping.recordFailure({ requestId, reason });
    return { status: 'failed', reason, code: 'render_failed' };
  }
  await bookkeeping.recordCompletion({ requestId, file });

  if (webhook) await deliverOutcome(requestId);
  return { status: 'done' };
}
