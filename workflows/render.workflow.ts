import { ActivityFailure, ApplicationFailure, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { RenderActivities } from './render.activities.js';

export interface RenderWorkflowInput {
  readonly requestId: string;
  /** Deliver the outcome to the request's webhookUrl once the file is stored. */
  readonly webhook: boolean;
}

export type RenderWorkflowResult =
  | { readonly status: 'done' }
  | { readonly status: 'failed'; readonly reason: string; readonly code: 'payment_required' | 'render_failed' };

/** Short bookkeeping steps run as local activities: no task-queue round trip on the hot path. */
const bookkeeping = proxyLocalActivities<RenderActivities>({
  startToCloseTimeout: '15s',
  retry: { initialInterval: '100ms', backoffCoefficient: 2, maximumInterval: '5s', maximumAttempts: 20 },
});

const rendering = proxyActivities<RenderActivities>({
  startToCloseTimeout: '2m',
  heartbeatTimeout: '10s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 3 },
});

const webhooks = proxyActivities<RenderActivities>({
  startToCloseTimeout: '30s',
  scheduleToCloseTimeout: '24h',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '1h' },
});

const failureOf = (error: unknown): { reason: string; type: string | undefined } => {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure) return { reason: cause.message, type: cause.type ?? undefined };
  return { reason: cause instanceof Error ? cause.message : 'unknown failure', type: undefined };
};

/** workflowId = requestId. Charge, render and store, record; refund when the render cannot be made. */
export async function renderWorkflow({ requestId, webhook }: RenderWorkflowInput): Promise<RenderWorkflowResult> {
  try {
    await bookkeeping.chargeCredits({ requestId });
  } catch (error) {
    const { reason, type } = failureOf(error);
    await bookkeeping.recordFailure({ requestId, reason });
    return { status: 'failed', reason, code: type === 'payment_required' ? 'payment_required' : 'render_failed' };
  }

  let file;
  try {
    file = await rendering.produceRender({ requestId });
  } catch (error) {
    const { reason } = failureOf(error);
    await bookkeeping.refundCredits({ requestId });
    await bookkeeping.recordFailure({ requestId, reason });
    return { status: 'failed', reason, code: 'render_failed' };
  }
  await bookkeeping.recordCompletion({ requestId, file });

  if (webhook) {
    try {
      await webhooks.deliverWebhook({ requestId });
    } catch {
      // The render itself succeeded; an undeliverable webhook after a day of retries does not undo it.
    }
  }
  return { status: 'done' };
}
