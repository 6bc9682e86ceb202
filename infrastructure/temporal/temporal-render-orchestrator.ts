import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { RenderOrchestrator, RenderOutcome } from '../../application/ports/render-orchestrator.js';
import type { FailureCode } from '../../domain/shared/errors.js';
// Imported for their names and types only: the client never runs workflow code.
import { batchWorkflow, captureWorkflow, syncCaptureWorkflow, renderWorkflow, syncRenderWorkflow, videoRenderWorkflow, webhookWorkflow } from '../../workflows/index.js';
import { batchWorkflowId } from '../../workflows/batch.workflow.js';

export interface TemporalRenderOrchestratorOptions {
  readonly client: Client;
  readonly taskQueue: string;
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

/** A workflow id that is taken means the request's workflow runs or ran already. */
const once = async (start: Promise<unknown>): Promise<void> => {
  try {
    await start;
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
};

/** Render workflows keyed by request id, so a retried start never renders twice. */
export const createTemporalRenderOrchestrator = ({ client, taskQueue, eagerStart = false }: TemporalRenderOrchestratorOptions): RenderOrchestrator => {
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
     * The caller hears the workflow's own result, through Temporal's long poll for its end. Measured
     * against word from this process's worker (a process-local map the recording step told), the
     * poll cost nothing measurable at one client or eight (docs/benchmarks.md, "The render's
     * protocol"), and it is the same for every caller, whichever worker ran the render.
     */
    async waitForOutcome(requestId, timeoutMs) {
      const polling = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const result = client.connection
        .withAbortSignal(polling.signal, () => client.workflow.getHandle<RequestWorkflow>(requestId).result())
        .then(inTaxonomy);
      try {
        return await Promise.race([result, new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)))]);
      } finally {
        clearTimeout(timer);
        // The cancelled poll rejects; nobody waits for it any more.
        result.catch(() => {});
        polling.abort();
      }
    },
  };
};
