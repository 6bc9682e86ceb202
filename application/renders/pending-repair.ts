import type { ResultReadModel } from '../ports/read-models.js';
import type { RenderOrchestrator } from '../ports/render-orchestrator.js';
import { createCredits } from '../credits/credits.js';
import { failRender } from './fail-render/fail-render.js';
import type { CommandDeps } from '../shared/command-handler.js';
import { loadRender } from './load-render.js';

export interface PendingRepairDeps extends CommandDeps {
  readonly results: ResultReadModel;
  readonly orchestrator: RenderOrchestrator;
  /** A younger request may still be between its append and its workflow's start, or its outcome not yet projected. */
  readonly graceMs: number;
  /** Requests looked at per pass. */
  readonly batchSize: number;
}

export interface RepairedRequest {
  readonly requestId: string;
  readonly why: 'never-started' | 'ended-without-outcome';
}

export const REPAIR_REASONS: Record<RepairedRequest['why'], string> = {
  'never-started': 'The render could not be started; nothing was charged',
  'ended-without-outcome': 'The render stopped before it recorded an outcome; its credits were refunded',
};

/**
 * A request is accepted by appending it, then its workflow is started. A crash or an unreachable
 * Temporal between the two, or a workflow terminated by hand, would leave it pending for ever (and
 * undeletable). This finds such requests and fails them: a request that never started was answered
 * with an error, so failing it (nothing was charged) matches what its client was told; one whose
 * workflow ended without an outcome gets its credits back and its webhook told. Both commands are
 * idempotent, so passes in several processes at once, or a pass cut short, do no harm.
 */
export const createPendingRepair = (deps: PendingRepairDeps) => {
  const credits = createCredits(deps);
  const fail = async (requestId: string, orgId: string, why: RepairedRequest['why']): Promise<boolean> => {
    const render = await loadRender(deps.eventStore, requestId);
    // The read model lagged behind an outcome that is already recorded.
    if (render.status !== 'pending') return false;
    // Refund first: if the pass stops between the two, the next one finds the request still pending
    // and the refund, which only returns what was charged and never twice, is a no-op.
    await credits.refund(render.request);
    await failRender(deps, { orgId, requestId }, REPAIR_REASONS[why]);
    if (why === 'ended-without-outcome' && render.request.webhookUrl !== null) await deps.orchestrator.startWebhook({ requestId });
    return true;
  };

  return {
    /** One pass over the oldest stale pending requests; returns those it failed. */
    async repairOnce(): Promise<RepairedRequest[]> {
      const before = new Date(deps.clock.now().getTime() - deps.graceMs);
      const repaired: RepairedRequest[] = [];
      for (const { requestId, orgId } of await deps.results.stalePending(before, deps.batchSize)) {
        const state = await deps.orchestrator.workflowState(requestId);
        if (state === 'running') continue;
        const why = state === 'absent' ? 'never-started' : 'ended-without-outcome';
        if (await fail(requestId, orgId, why)) repaired.push({ requestId, why });
      }
      return repaired;
    },
  };
};
