/*
 * workflows/render.workflow.ts as it was at 07b8217, the parent of ae0fb3b, which added the
 * 'webhook-on-failure' patch: a failed request does not tell its webhook. Only the import paths
 * differ, and the outcome carries the file as RenderOutcome now requires (a return value is no
 * command: the histories it records are the same). scripts/record-workflow-histories.ts runs it, under its production workflow types, to
 * record the histories of workflows started before the patch. Do not bring it up to date: it is
 * the old code on purpose.
 */
import { ActivityFailure, ApplicationFailure, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { StoredFile } from '../../../domain/renders/render-events.js';
import type { RenderActivities } from '../../../workflows/render.activities.js';
import { deliverOutcome } from '../../../workflows/deliver-outcome.js';

export interface RenderWorkflowInput {
  readonly requestId: string;
  /** Deliver the outcome to the request's webhookUrl once the file is stored. */
  readonly webhook: boolean;
}

/** RenderOutcome as it was then, its failures named by the codes of the time. */
type RenderOutcome = (
  | { readonly status: 'done'; readonly file: StoredFile }
  | { readonly status: 'failed'; readonly reason: string; readonly code: 'payment_required' | 'render_failed' | 'rejected' }
  | { readonly status: 'failed'; readonly reason: string; readonly code: 'unavailable'; readonly retryAfterSeconds: number }
) & { readonly position?: number | null };

export type RenderWorkflowResult = RenderOutcome;
/** How a failed production is classified; being refused for lack of room is told apart by the failure itself. */
type RenderFailureCode = Exclude<Extract<RenderOutcome, { status: 'failed' }>['code'], 'unavailable'>;

/** The activities as they were then: recordFailure took the reason alone (an input is no command either). */
type ActivitiesThen = Omit<RenderActivities, 'recordFailure'> & { recordFailure(input: { requestId: string; reason: string }): Promise<number | null> };

/** Short bookkeeping steps run as local activities: no task-queue round trip on the hot path. */
const bookkeeping = proxyLocalActivities<ActivitiesThen>({
  startToCloseTimeout: '15s',
  retry: { initialInterval: '100ms', backoffCoefficient: 2, maximumInterval: '5s', maximumAttempts: 20 },
});

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
    const { reason, type, retryAfterSeconds } = failureOf(error);
    await bookkeeping.refundCredits({ requestId });
    const position = await bookkeeping.recordFailure({ requestId, reason });
    // Still no room after the retries: the client hears when asking again is worth it.
    if (type === 'unavailable') return { status: 'failed', reason, code: 'unavailable', retryAfterSeconds: retryAfterSeconds ?? 5, position };
    return { status: 'failed', reason, code: failureCode(type), position };
  }
  const position = await bookkeeping.recordCompletion({ requestId, file });

  if (webhook) await deliverOutcome(requestId);
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
