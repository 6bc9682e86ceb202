import type { Clock } from '../../ports/clock.js';
import type { BatchReadModel } from '../../ports/read-models.js';
import type { RenderOrchestrator } from '../../ports/render-orchestrator.js';

export interface ResumeBatchesDeps {
  readonly batches: Pick<BatchReadModel, 'unended'>;
  readonly orchestrator: Pick<RenderOrchestrator, 'startBatch'>;
  readonly clock: Clock;
  /** A younger batch may still be between its append and its workflow's start. */
  readonly graceMs: number;
  /** Batches looked at per pass. */
  readonly limit: number;
}

/**
 * A batch is accepted by appending it, then its workflow is started; a crash or an unreachable
 * Temporal between the two would leave it pending for ever. Starting a batch's workflow is
 * idempotent (a running one is left as it is, and a run that ended without ending the batch goes on
 * where the rows say), so every batch not ended a while after it was accepted is started again.
 * Answers the batches it started.
 */
export const resumeBatches = async (deps: ResumeBatchesDeps): Promise<string[]> => {
  const before = new Date(deps.clock.now().getTime() - deps.graceMs);
  const started: string[] = [];
  for (const { batchId } of await deps.batches.unended(before, deps.limit)) {
    await deps.orchestrator.startBatch({ batchId });
    started.push(batchId);
  }
  return started;
};
