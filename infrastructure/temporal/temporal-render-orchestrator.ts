import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { RenderOrchestrator, RenderOutcome } from '../../application/ports/render-orchestrator.js';
import type { FailureCode } from '../../domain/shared/errors.js';
import type { LocalOutcomes } from './local-outcomes.js';
// Imported for their names and types only: the client never runs workflow code.
import { captureWorkflow, syncCaptureWorkflow, renderWorkflow, syncRenderWorkflow, videoRenderWorkflow, webhookWorkflow } from '../../workflows/index.js';

export interface TemporalRenderOrchestratorOptions {
  readonly client: Client;
  readonly taskQueue: string;
  /** Completions recorded by a worker in this process, heard before Temporal reports the workflow's end. */
  readonly localOutcomes?: LocalOutcomes;
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
export const createTemporalRenderOrchestrator = ({ client, taskQueue, localOutcomes }: TemporalRenderOrchestratorOptions): RenderOrchestrator => {
  const startRequest = (workflow: RequestWorkflow, requestId: string, webhook: boolean) =>
    once(client.workflow.start(workflow, { workflowId: requestId, taskQueue, args: [{ requestId, webhook }] }));
  return {
    // A client waiting for the file gets the short path; a webhook render may take the longer, heartbeating one.
    start: ({ requestId, webhook }) => startRequest(webhook ? renderWorkflow : syncRenderWorkflow, requestId, webhook),
    startVideo: ({ requestId, webhook }) => startRequest(videoRenderWorkflow, requestId, webhook),
    // Captures as renders: the short path for a client that waits.
    startCapture: ({ requestId, webhook }) => startRequest(webhook ? captureWorkflow : syncCaptureWorkflow, requestId, webhook),
    startWebhook: ({ requestId }) => once(client.workflow.start(webhookWorkflow, { workflowId: requestId, taskQueue, args: [{ requestId }] })),

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
     * Whichever comes first: the completion recorded by this process's worker, or the workflow's end
     * through Temporal (a failure, or a render another worker made). The long poll for the latter is
     * cancelled once the answer is known, so it costs the server nothing more.
     */
    async waitForOutcome(requestId, timeoutMs) {
      const polling = new AbortController();
      const result: Promise<RenderOutcome> = client.connection
        .withAbortSignal(polling.signal, () => client.workflow.getHandle<RequestWorkflow>(requestId).result())
        .then(inTaxonomy);
      const local = localOutcomes?.listen(requestId);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      try {
        return await Promise.race([result, timeout, ...(local ? [local.outcome] : [])]);
      } finally {
        clearTimeout(timer);
        local?.stop();
        // The cancelled poll rejects; nobody waits for it any more.
        result.catch(() => {});
        polling.abort();
      }
    },
  };
};
