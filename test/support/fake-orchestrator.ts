import type { FailedOutcome, RenderOrchestrator, RenderOutcome } from '../../application/ports/render-orchestrator.js';
import type { StoredFile } from '../../domain/renders/render-events.js';
import { DEFAULT_RETRY_AFTER_SECONDS, DomainError, failureCodeOf, retryAfterSecondsOf } from '../../domain/shared/errors.js';

/**
 * A RenderOrchestrator for unit tests: it records what was started, and a test decides how each
 * request ends (done, failed, unavailable, or a timeout of the caller's wait). Given the steps of a
 * request, it runs them at once, in the order the workflows run them (workflows/render.workflow.ts,
 * produceFile): charge; produce and store; record the completion; or refund and record the failure.
 */

export type WorkKind = 'render' | 'video' | 'capture' | 'webhook';

export interface StartedWork {
  readonly kind: WorkKind;
  readonly requestId: string;
  /** Whether the workflow was asked to deliver the outcome to the request's webhookUrl. */
  readonly webhook: boolean;
}

/** How a request ends for its waiting caller; 'timeout': the wait runs out while the work goes on. */
export type FakeOutcome = RenderOutcome | 'timeout';

/** One request's work, as the activities of its workflow do it (the application's render or capture steps). */
export interface RequestSteps {
  charge(requestId: string): Promise<void>;
  produce(requestId: string): Promise<StoredFile>;
  /** What a synchronous request's workflow runs instead of `produce`, where the steps have it (renders record the completion with it). */
  produceNow?(requestId: string): Promise<StoredFile>;
  refund(requestId: string): Promise<void>;
  /** Returns the log position of the completion. */
  complete(requestId: string, file: StoredFile): Promise<number | null>;
  /** Returns the log position of the failure. */
  fail(requestId: string, failure: FailedOutcome): Promise<number | null>;
}

export interface FakeOrchestratorOptions {
  /** Run synchronously in start() / startCapture() instead of ending as decided. */
  readonly steps?: { readonly render?: RequestSteps; readonly capture?: RequestSteps };
  /** Called where the workflow delivers the outcome to the webhook (after its work, and for startWebhook). */
  readonly deliverWebhook?: (requestId: string) => Promise<void>;
}

export interface FakeOrchestrator extends RenderOrchestrator {
  /** Every start, in order, repeated starts included. */
  readonly started: StartedWork[];
  /** The batches whose workflow was started, in order. */
  readonly batchesStarted: string[];
  /** How `requestId` ends, or every request without an outcome of its own when `requestId` is left out. */
  endWith(outcome: FakeOutcome, requestId?: string): void;
  /** Makes every start fail with `error` (Temporal unreachable) until called with null. */
  refuseStarts(error: Error | null): void;
}

/** How a step that threw ends the request, in the port's taxonomy, as workflows/failures.ts reads it back from Temporal. */
const failedOutcomeOf = (error: unknown): FailedOutcome => {
  const reason = error instanceof Error ? error.message : String(error);
  const code = failureCodeOf(error instanceof DomainError ? error.code : undefined);
  if (code !== 'unavailable') return { status: 'failed', reason, code };
  return { status: 'failed', reason, code, retryAfterSeconds: error instanceof DomainError ? retryAfterSecondsOf(error) : DEFAULT_RETRY_AFTER_SECONDS };
};

const runSteps = async (steps: RequestSteps, requestId: string, sync: boolean): Promise<RenderOutcome> => {
  try {
    await steps.charge(requestId);
  } catch (error) {
    const failed = failedOutcomeOf(error);
    return { ...failed, position: await steps.fail(requestId, failed) };
  }
  let file: StoredFile;
  try {
    file = await (sync && steps.produceNow ? steps.produceNow(requestId) : steps.produce(requestId));
  } catch (error) {
    const failed = failedOutcomeOf(error);
    await steps.refund(requestId);
    return { ...failed, position: await steps.fail(requestId, failed) };
  }
  return { status: 'done', file, position: await steps.complete(requestId, file) };
};

/** The file of a request the fake ends as done without running any steps: nothing was stored. */
const UNSTORED: StoredFile = { storageKey: 'unstored', fileName: 'unstored', contentType: 'application/octet-stream', bytes: 0, width: 0, height: 0 };

export const createFakeOrchestrator = ({ steps = {}, deliverWebhook }: FakeOrchestratorOptions = {}): FakeOrchestrator => {
  const started: StartedWork[] = [];
  const batchesStarted: string[] = [];
  const decided = new Map<string, FakeOutcome>();
  const runs = new Map<string, Promise<FakeOutcome>>();
  let fallback: FakeOutcome = { status: 'done', file: UNSTORED, position: null };
  let refusal: Error | null = null;

  const start = async (work: StartedWork, requestSteps?: RequestSteps) => {
    if (refusal) throw refusal;
    started.push(work);
    // Starting the same request twice is a no-op, as a workflow id that is already taken is.
    if (runs.has(work.requestId) || !requestSteps) return;
    const run = runSteps(requestSteps, work.requestId, !work.webhook).then(async (outcome) => {
      if (work.webhook) await deliverWebhook?.(work.requestId);
      return outcome;
    });
    runs.set(work.requestId, run);
    await run.catch(() => {});
  };

  const outcomeOf = (requestId: string): Promise<FakeOutcome> | FakeOutcome | undefined => decided.get(requestId) ?? runs.get(requestId);

  return {
    started,
    batchesStarted,
    endWith(outcome, requestId) {
      if (requestId === undefined) fallback = outcome;
      else decided.set(requestId, outcome);
    },
    refuseStarts(error) {
      refusal = error;
    },

    start: ({ requestId, webhook }) => start({ kind: 'render', requestId, webhook }, steps.render),
    startVideo: ({ requestId, webhook }) => start({ kind: 'video', requestId, webhook }),
    startCapture: ({ requestId, webhook }) => start({ kind: 'capture', requestId, webhook }, steps.capture),
    async startWebhook({ requestId }) {
      await start({ kind: 'webhook', requestId, webhook: true });
      await deliverWebhook?.(requestId);
    },
    async startBatch({ batchId }) {
      if (refusal) throw refusal;
      batchesStarted.push(batchId);
    },
    startBatchRow: ({ requestId }) => start({ kind: 'render', requestId, webhook: false }, steps.render),

    async workflowState(requestId) {
      if (!started.some((work) => work.requestId === requestId)) return 'absent';
      return (await (outcomeOf(requestId) ?? fallback)) === 'timeout' ? 'running' : 'closed';
    },

    async waitForOutcome(requestId) {
      if (!started.some((work) => work.requestId === requestId)) throw new Error(`the fake orchestrator never started ${requestId}`);
      return outcomeOf(requestId) ?? fallback;
    },
  };
};
