import type { FailedOutcome, RenderOrchestrator, RenderOutcome } from '../../application/ports/render-orchestrator.js';
import type { StoredFile } from '../../domain/renders/render-events.js';
import { translated } from '../../workflows/failures.js';
import { runRequestSequence } from '../../workflows/render.workflow.js';

/**
 * A RenderOrchestrator for unit tests: it records what was started, and a test decides how each
 * request ends (done, failed, unavailable, or a timeout of the caller's wait). Given the steps of a
 * request, it runs them at once through the workflows' own sequence (workflows/render.workflow.ts):
 * charge; produce and store; record the completion; or refund and record the failure.
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

/**
 * The workflows' own sequence (workflows/render.workflow.ts) over the application's steps, each
 * crossing into the sequence as an activity's failure does (workflows/failures.ts).
 */
const runSteps = (steps: RequestSteps, requestId: string, sync: boolean, webhook: () => Promise<void>): Promise<RenderOutcome> =>
  runRequestSequence({
    charge: () => translated(() => steps.charge(requestId)),
    produce: () => translated(() => (sync && steps.produceNow ? steps.produceNow(requestId) : steps.produce(requestId))),
    refund: () => translated(() => steps.refund(requestId)),
    recordFailure: (failure) => translated(() => steps.fail(requestId, failure)),
    recordCompletion: (file) => translated(() => steps.complete(requestId, file)),
    tellWebhook: webhook,
  });

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
    const run = runSteps(requestSteps, work.requestId, !work.webhook, async () => {
      if (work.webhook) await deliverWebhook?.(work.requestId);
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
