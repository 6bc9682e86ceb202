import { ActivityFailure, ApplicationFailure, patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { RenderOutcome } from '../application/ports/render-orchestrator.js';
import type { StoredFile } from '../domain/renders/render-events.js';
import { DEFAULT_RETRY_AFTER_SECONDS } from '../domain/shared/errors.js';
import type { RenderActivities } from './render.activities.js';
import { deliverOutcome } from './deliver-outcome.js';
import { BOOKKEEPING } from './activity-options.js';

export interface RenderWorkflowInput {
  readonly requestId: string;
  /** Deliver the outcome to the request's webhookUrl once the file is stored. */
  readonly webhook: boolean;
}

export type RenderWorkflowResult = RenderOutcome;
/** How a failed production is classified; being refused for lack of room is told apart by the failure itself. */
type RenderFailureCode = Exclude<Extract<RenderOutcome, { status: 'failed' }>['code'], 'unavailable'>;

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

/** A template that cannot be rendered (an endless script, a page that crashes) is the request's fault. */
const renderFailureCode = (type: string | undefined): RenderFailureCode => (type === 'validation' ? 'rejected' : 'render_failed');

export const failureOf = (error: unknown): { reason: string; type: string | undefined; retryAfterSeconds?: number } => {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure) {
    const hint = cause.details?.at(-1) as { retryAfterSeconds?: unknown } | undefined;
    const retryAfterSeconds = typeof hint?.retryAfterSeconds === 'number' ? hint.retryAfterSeconds : undefined;
    return { reason: cause.message, type: cause.type ?? undefined, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) };
  }
  return { reason: cause instanceof Error ? cause.message : 'unknown failure', type: undefined };
};

/**
 * A client answered at once hears of a failure too. Histories recorded before failures were
 * delivered replay without it (Temporal's patching), so workflows in flight during an upgrade go on.
 */
const tellWebhookOfFailure = async (requestId: string, webhook: boolean): Promise<void> => {
  if (webhook && patched('webhook-on-failure')) await deliverOutcome(requestId);
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
    await tellWebhookOfFailure(requestId, webhook);
    return { status: 'failed', reason, code: type === 'payment_required' ? 'payment_required' : 'render_failed', position };
  }

  let file;
  try {
    file = await produce();
  } catch (error) {
    const { reason, type, retryAfterSeconds } = failureOf(error);
    await bookkeeping.refundCredits({ requestId });
    const position = await bookkeeping.recordFailure({ requestId, reason });
    await tellWebhookOfFailure(requestId, webhook);
    // Still no room after the retries: the client hears when asking again is worth it.
    if (type === 'unavailable') return { status: 'failed', reason, code: 'unavailable', retryAfterSeconds: retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS, position };
    return { status: 'failed', reason, code: failureCode(type), position };
  }
  const position = await bookkeeping.recordCompletion({ requestId, file });

  if (webhook) await deliverOutcome(requestId);
  // The file as the activity stored it: a caller serves it from here rather than predicting where it went.
  return { status: 'done', file, position };
}

/**
 * workflowId = requestId. Charge, render and store, record; refund when the render cannot be made;
 * then tell the webhook. For renders answered by webhook, where the render is a heartbeating activity.
 */
export async function renderWorkflow(input: RenderWorkflowInput): Promise<RenderWorkflowResult> {
  return produceFile(input, () => rendering.produceRender({ requestId: input.requestId }), renderFailureCode);
}

/** workflowId = requestId. The same steps for a client that waits: every step a local activity, in one workflow task. */
export async function syncRenderWorkflow(input: RenderWorkflowInput): Promise<RenderWorkflowResult> {
  return produceFile(input, () => renderingNow.produceRenderNow({ requestId: input.requestId }), renderFailureCode);
}
