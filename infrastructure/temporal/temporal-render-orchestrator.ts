import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { RenderOrchestrator, RenderOutcome } from '../../application/ports/render-orchestrator.js';
import type { RenderWorkflowResult } from '../../workflows/render.workflow.js';

export interface TemporalRenderOrchestratorOptions {
  readonly client: Client;
  readonly taskQueue: string;
}

/** Render workflows keyed by request id, so a retried start never renders twice. */
export const createTemporalRenderOrchestrator = ({ client, taskQueue }: TemporalRenderOrchestratorOptions): RenderOrchestrator => {
  const startOnce = async (
    workflow: 'renderWorkflow' | 'syncRenderWorkflow' | 'videoRenderWorkflow' | 'captureWorkflow' | 'webhookWorkflow',
    requestId: string,
    webhook: boolean,
  ) => {
    try {
      await client.workflow.start(workflow, { workflowId: requestId, taskQueue, args: [{ requestId, webhook }] });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  };
  return {
    // A client waiting for the file gets the short path; a webhook render may take the longer, heartbeating one.
    start: ({ requestId, webhook }) => startOnce(webhook ? 'renderWorkflow' : 'syncRenderWorkflow', requestId, webhook),
    startVideo: ({ requestId, webhook }) => startOnce('videoRenderWorkflow', requestId, webhook),
    startCapture: ({ requestId, webhook }) => startOnce('captureWorkflow', requestId, webhook),
    startWebhook: ({ requestId }) => startOnce('webhookWorkflow', requestId, true),

    async workflowState(requestId) {
      try {
        const { status } = await client.workflow.getHandle(requestId).describe();
        return status.name === 'RUNNING' ? 'running' : 'closed';
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return 'absent';
        throw error;
      }
    },

    async waitForOutcome(requestId, timeoutMs) {
      // Render and capture workflows both end in a RenderOutcome.
      const result = client.workflow.getHandle(requestId).result() as Promise<RenderWorkflowResult | RenderOutcome>;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      try {
        const outcome: RenderWorkflowResult | RenderOutcome | 'timeout' = await Promise.race([result, timeout]);
        return outcome satisfies RenderOutcome | 'timeout';
      } finally {
        clearTimeout(timer);
      }
    },
  };
};
