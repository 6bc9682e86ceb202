import type { Logger } from 'pino';
import type { RenderOrchestrator } from '../../application/ports/render-orchestrator.js';
import { resumeBatches } from '../../application/batches/resume-batches/resume-batches.js';
import { createPendingRepair } from '../../application/renders/pending-repair.js';
import type { Config } from '../../infrastructure/config/config.js';
import { runPeriodically } from '../../infrastructure/system/periodic-task.js';
import type { Foundation } from './foundation.js';
import type { Lifetime } from './lifetime.js';

/** Fails requests left pending without a live workflow, and starts batches whose workflow may not run, every PENDING_REPAIR_INTERVAL_MS. */
export const startPendingRepair = (foundation: Foundation, orchestrator: RenderOrchestrator, config: Config, logger: Logger, lifetime: Lifetime): void => {
  const repair = createPendingRepair({
    ...foundation.commandDeps,
    results: foundation.readModels.results,
    orchestrator,
    graceMs: config.PENDING_REPAIR_AFTER_MS,
    batchSize: 100,
  });
  const repairing = runPeriodically(
    async () => {
      for (const { requestId, why } of await repair.repairOnce()) logger.warn({ requestId, why }, 'failed a request left pending');
      const batchDeps = { batches: foundation.readModels.batches, orchestrator, clock: foundation.commandDeps.clock, graceMs: config.PENDING_REPAIR_AFTER_MS, limit: 100 };
      logger.debug({ batches: await resumeBatches(batchDeps) }, 'batches not ended are running');
    },
    config.PENDING_REPAIR_INTERVAL_MS,
    (error) => logger.error({ err: error }, 'repair of pending requests failed'),
  );
  lifetime.defer(() => repairing.stop());
};
