import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { RenderOrchestrator, RenderOutcome } from '../../application/ports/render-orchestrator.js';
import type { RenderWorkflowResult } from '../../workflows/render.workflow.js';

export interface TemporalRenderOrchestratorOptions {
  readonly client: Client;
  readonly taskQueue: string;
}

/** Render workflows keyed by request id, so a retried start never renders twice. */
export const createTemporalRenderOrchestrator = ({ client, taskQueue }: TemporalRenderOrchestratorOptions): RenderOrchestrator => ({
  async start({ requestId, webhook }) {
    try {
      await client.workflow.start('renderWorkflow', { workflowId: requestId, taskQueue, args: [{ requestId, webhook }] });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  },

  async waitForOutcome(requestId, timeoutMs) {
    const result = client.workflow.getHandle(requestId).result() as Promise<RenderWorkflowResult>;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      const outcome: RenderWorkflowResult | 'timeout' = await Promise.race([result, timeout]);
      return outcome satisfies RenderOutcome | 'timeout';
    } finally {
      clearTimeout(timer);
    }
  },
});
