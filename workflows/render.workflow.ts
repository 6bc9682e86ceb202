import { ActivityFailure, ApplicationFailure, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { RenderOutcome } from '../application/ports/render-orchestrator.js';
import type { StoredFile } from '../domain/renders/render-events.js';
import type { RenderActivities } from './render.activities.js';
import { deliverOutcome } from './webhook-delivery.js';

export interface RenderWorkflowInput {
  readonly requestId: string;
  /** Deliver the outcome to the request's webhookUrl once the file is stored. */
  readonly webhook: boolean;
}

export type RenderWorkflowResult = RenderOutcome;
type RenderFailureCode = Extract<RenderOutcome, { status: 'failed' }>['code'];

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

export const failureOf = (error: unknown): { reason: string; type: string | undefined } => {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure) return { reason: cause.message, type: cause.type ?? undefined };
  return { reason: cause instanceof Error ? cause.message : 'unknown failure', type: undefined };
};

/**
 * The life of any request that produces one file (a render, a capture): charge, produce and store,
 * record; refund when the file cannot be made; then tell the webhook. `failureCode` classifies a
 * failed production by the failure's type.
 */
export async function produceFile(
  { requestId, webhook }: RenderWorkflowInput,
  produce: () => Promise<StoredFile>,
  failureCode: (type: string | undefined) => RenderFailureCode = () => 'render_failed',
): Promise<RenderWorkflowResult> {
  try {
    await bookkeeping.chargeCredits({ requestId });
  } catch (error) {
    const { reason, type } = failureOf(error);
    const position = await bookkeeping.recordFailure({ requestId, reason });
    return { status: 'failed', reason, code: type === 'payment_required' ? 'payment_required' : 'render_failed', position };
  }

  let file;
  try {
    file = await produce();
  } catch (error) {
    const { reason, type } = failureOf(error);
    await bookkeeping.refundCredits({ requestId });
    const position = await bookkeeping.recordFailure({ requestId, reason });
    return { status: 'failed', reason, code: failureCode(type), position };
  }
  const position = await bookkeeping.recordCompletion({ requestId, file });

  if (webhook) await deliverOutcome(requestId);
  return { status: 'done', position };
}

/** workflowId = requestId. Charge, render and store, record; refund when the render cannot be made. */
export async function renderWorkflow(input: RenderWorkflowInput): Promise<RenderWorkflowResult> {
  return produceFile(input, () => rendering.produceRender({ requestId: input.requestId }));
}
