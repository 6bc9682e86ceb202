import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { RenderOrchestrator, RenderOutcome } from '../../application/ports/render-orchestrator.js';
import type { FailureCode } from '../../domain/shared/errors.js';
import type { LocalOutcomes } from './local-outcomes.js';
// Imported for their names and types only: the client never runs workflow code.
import { batchWorkflow, captureWorkflow, syncCaptureWorkflow, renderWorkflow, syncRenderWorkflow, videoRenderWorkflow, webhookWorkflow } from '../../workflows/index.js';
import { batchWorkflowId } from '../../workflows/batch.workflow.js';

export interface TemporalRenderOrchestratorOptions {
  readonly client: Client;
  readonly taskQueue: string;
  /** Outcomes recorded by a worker in this process, heard before Temporal reports the workflow's end. */
  readonly localOutcomes?: LocalOutcomes;
  /**
   * The client shares its connection with a worker of this process on `taskQueue`: each start asks
   * for the workflow's first task in its answer, for that worker (the server falls back to its
   * queue when the worker has no free slot).
   */
  readonly eagerStart?: boolean;
}

/** The workflows whose outcome a caller may wait for: each makes one file and ends in a RenderOutcome. */
type RequestWorkflow = typeof renderWorkflow | typeof syncRenderWorkflow | typeof videoRenderWorkflow | typeof captureWorkflow | typeof syncCaptureWorkflow;

/**
 * Workers released before the failure taxonomy named their failures otherwise; an API upgraded
 * first still reads, during a rolling upgrade, what they return.
 */
const EARLIER_FAILURE_CODES: Readonly<Record<string, FailureCode>> = { rejected: 'validation', render_failed: 'failed' };

export const inTaxonomy = (outcome: RenderOutcome): RenderOutcome => {
  if (outcome.status !== 'failed') return outcome;
  const code = EARLIER_FAILURE_CODES[outcome.code];
  return code === undefined || code === 'unavailable' ? outcome : { ...outcome, code };
};

/** How long a caller in a process that runs workflows waits for its worker's word before asking Temporal too. */
export const TEMPORAL_POLL_AFTER_MS = 2_000;

/** A workflow id that is taken means the request's workflow runs or ran already. */
const once = async (start: Promise<unknown>): Promise<void> => {
  try {
    await start;
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
};

/** Render workflows keyed by request id, so a retried start never renders twice. */
export const createTemporalRenderOrchestrator = ({ client, taskQueue, localOutcomes, eagerStart = false }: TemporalRenderOrchestratorOptions): RenderOrchestrator => {
  const startRequest = (workflow: RequestWorkflow, requestId: string, webhook: boolean) =>
    once(client.workflow.start(workflow, { workflowId: requestId, taskQueue, args: [{ requestId, webhook }], requestEagerStart: eagerStart }));
  return {
    // A client waiting for the file gets the short path; a webhook render may take the longer, heartbeating one.
    start: ({ requestId, webhook }) => startRequest(webhook ? renderWorkflow : syncRenderWorkflow, requestId, webhook),
    startVideo: ({ requestId, webhook }) => startRequest(videoRenderWorkflow, requestId, webhook),
    // Captures as renders: the short path for a client that waits.
    startCapture: ({ requestId, webhook }) => startRequest(webhook ? captureWorkflow : syncCaptureWorkflow, requestId, webhook),
    startWebhook: ({ requestId }) => once(client.workflow.start(webhookWorkflow, { workflowId: requestId, taskQueue, args: [{ requestId }], requestEagerStart: eagerStart })),
    startBatch: ({ batchId }) => once(client.workflow.start(batchWorkflow, { workflowId: batchWorkflowId(batchId), taskQueue, args: [{ batchId, rowsStartedBySteps: true }] })),
    // A row's id that ran before is refused rather than run again: a row renders, stores and charges once.
    startBatchRow: ({ requestId }) =>
      once(
        client.workflow.start(renderWorkflow, {
          workflowId: requestId,
          taskQueue,
          args: [{ requestId, webhook: false, batchRow: true }],
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          requestEagerStart: eagerStart,
        }),
      ),

    async workflowState(requestId) {
      try {
        const { status } = await client.workflow.getHandle(requestId).describe();
        return status.name === 'RUNNING' ? 'running' : 'closed';
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return 'absent';
        throw error;
      }
    },

    /*
     * A worker in this process tells its outcomes (a file or a failure) to the callers waiting here,
     * and that is how nearly every request is answered in a process that runs workflows. Temporal's
     * long poll for the workflow's end is the fallback, for a request another worker runs: it starts
     * only after TEMPORAL_POLL_AFTER_MS without a word from the local worker. Started at once and
     * cancelled when the local outcome came, it cost CPU on every request, this process's (grpc-js
     * builds the cancelled call's error, stack and all) and the Temporal server's, for an answer that
     * nearly always comes from the local worker. A process without a worker polls at once.
     */
    async waitForOutcome(requestId, timeoutMs) {
      const local = localOutcomes?.listen(requestId);
      const polling = new AbortController();
      let result: Promise<RenderOutcome> | undefined;
      const timers: NodeJS.Timeout[] = [];
      const after = <T>(ms: number, value: () => T | Promise<T>) =>
        new Promise<T>((resolve, reject) => {
          timers.push(setTimeout(() => Promise.resolve(value()).then(resolve, reject), ms));
        });
      const pollTemporal = () =>
        (result = client.connection
          .withAbortSignal(polling.signal, () => client.workflow.getHandle<RequestWorkflow>(requestId).result())
          .then(inTaxonomy));
      try {
        return await Promise.race([
          local ? after(TEMPORAL_POLL_AFTER_MS, pollTemporal) : pollTemporal(),
          after(timeoutMs, () => 'timeout' as const),
          ...(local ? [local.outcome] : []),
        ]);
      } finally {
        for (const timer of timers) clearTimeout(timer);
        local?.stop();
        // The cancelled poll rejects; nobody waits for it any more.
        result?.catch(() => {});
        polling.abort();
      }
    },
  };
};
