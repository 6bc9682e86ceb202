/*
 * Test-only copies of renderWorkflow and videoRenderWorkflow, bundled in place of workflows/index.ts
 * by test/workflows/replay.workflow.test.ts to show that replaying the recorded histories fails when
 * the workflow code changes in a way that would break workflows already running. They register
 * the production workflow types; the workflow id a history is replayed as names the one change
 * (an Alteration) the copy makes, and `unaltered` makes none, so that a copy that drifts from the
 * real code fails the test instead of making the alterations' failures meaningless.
 *
 * The code is workflows/render.workflow.ts's produceFile and workflows/video-render.workflow.ts's
 * produceVideo, trimmed to the paths the recorded histories take.
 */
import { ActivityFailure, ApplicationFailure, CancellationScope, patched, proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import { deliverOutcome } from '../../../workflows/deliver-outcome.js';
import type { RenderWorkflowInput, RenderWorkflowResult } from '../../../workflows/render.workflow.js';
import type { WorkerActivities } from '../../support/workflow-env.js';

export type Alteration =
  | 'unaltered'
  /** An activity call removed: no refund when the render cannot be made. */
  | 'no-refund'
  /** The webhook-on-failure patch's guard dropped: every failure is delivered, as if the patch had always been there. */
  | 'failure-webhook-unguarded'
  /** The webhook-on-failure patch reverted: no failure is delivered. */
  | 'failure-webhook-reverted'
  /** The video-segments patch's guard dropped: every video in segments. */
  | 'segments-unguarded'
  /** The video-segments patch reverted: every video one activity on the main queue. */
  | 'segments-reverted';

const alteration = () => workflowInfo().workflowId as Alteration;

const bookkeeping = proxyLocalActivities<WorkerActivities>({
  startToCloseTimeout: '15s',
  retry: { initialInterval: '100ms', backoffCoefficient: 2, maximumInterval: '5s', maximumAttempts: 20 },
});
const working = {
  startToCloseTimeout: '30m',
  heartbeatTimeout: '10s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 3 },
} as const;
const onMainQueue = proxyActivities<WorkerActivities>(working);

const failureOf = (error: unknown): { reason: string; type: string | undefined } => {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure) return { reason: cause.message, type: cause.type ?? undefined };
  return { reason: cause instanceof Error ? cause.message : 'unknown failure', type: undefined };
};

const tellWebhookOfFailure = async (requestId: string, webhook: boolean): Promise<void> => {
  if (!webhook || alteration() === 'failure-webhook-reverted') return;
  if (alteration() === 'failure-webhook-unguarded' || patched('webhook-on-failure')) await deliverOutcome(requestId);
};

const produceFile = async ({ requestId, webhook }: RenderWorkflowInput, produce: () => Promise<unknown>): Promise<RenderWorkflowResult> => {
  try {
    await bookkeeping.chargeCredits({ requestId });
  } catch (error) {
    const { reason } = failureOf(error);
    const position = await bookkeeping.recordFailure({ requestId, status: 'failed', reason, code: 'failed' });
    await tellWebhookOfFailure(requestId, webhook);
    return { status: 'failed', reason, code: 'failed', position };
  }
  let file;
  try {
    file = await produce();
  } catch (error) {
    const { reason } = failureOf(error);
    if (alteration() !== 'no-refund') await bookkeeping.refundCredits({ requestId });
    const position = await bookkeeping.recordFailure({ requestId, status: 'failed', reason, code: 'failed' });
    await tellWebhookOfFailure(requestId, webhook);
    return { status: 'failed', reason, code: 'failed', position };
  }
  const position = await bookkeeping.recordCompletion({ requestId, file: file as never });
  if (webhook) await deliverOutcome(requestId);
  return { status: 'done', file: file as never, position };
};

const produceVideo = async (requestId: string): Promise<unknown> => {
  const segmented = alteration() === 'segments-unguarded' || (alteration() !== 'segments-reverted' && patched('video-segments'));
  if (!segmented) return onMainQueue.produceVideo({ requestId });
  const producing = proxyActivities<WorkerActivities>({ ...working, taskQueue: `${workflowInfo().taskQueue}-video` });
  const { segments } = await bookkeeping.planVideo({ requestId });
  if (segments.length === 1) return producing.produceVideo({ requestId });
  await CancellationScope.cancellable(() => Promise.all(segments.map((segment, index) => producing.produceVideoSegment({ requestId, index, segment }))));
  return producing.joinVideoSegments({ requestId, segments: segments.length });
};

export async function renderWorkflow(input: RenderWorkflowInput): Promise<RenderWorkflowResult> {
  return produceFile(input, () => onMainQueue.produceRender({ requestId: input.requestId }));
}

export async function videoRenderWorkflow(input: RenderWorkflowInput): Promise<RenderWorkflowResult> {
  return produceFile(input, () => produceVideo(input.requestId));
}
