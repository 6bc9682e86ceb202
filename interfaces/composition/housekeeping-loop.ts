import type { Logger } from 'pino';
import type { RenderOrchestrator } from '../../application/ports/render-orchestrator.js';
import { resumeBatches } from '../../application/batches/resume-batches/resume-batches.js';
import { createPendingRepair } from '../../application/renders/pending-repair.js';
import { expireTestResults } from '../../application/results/expire-test-results/expire-test-results.js';
import type { Config } from '../../infrastructure/config/config.js';
import { runPeriodically } from '../../infrastructure/system/periodic-task.js';
import type { Foundation } from './foundation.js';
import type { Lifetime } from '../../infrastructure/system/lifetime.js';

/**
 * Every PENDING_REPAIR_INTERVAL_MS: fails requests left pending without a live workflow, starts
 * batches whose workflow may not run, and deletes test keys' results whose link has expired.
 */
export const startHousekeeping = (foundation: Foundation, orchestrator: RenderOrchestrator, config: Config, logger: Logger, lifetime: Lifetime): void => {
  const { commandDeps, readModels, storage, projections } = foundation;
  const repair = createPendingRepair({ ...commandDeps, results: readModels.results, orchestrator, graceMs: config.PENDING_REPAIR_AFTER_MS, batchSize: 100 });
  const expiryDeps = { ...commandDeps, results: readModels.results, storage, progress: projections, batchSize: 100 };
  const batchDeps = { batches: readModels.batches, orchestrator, clock: commandDeps.clock, graceMs: config.PENDING_REPAIR_AFTER_MS, limit: 100 };
  const housekeeping = runPeriodically(
    async () => {
      for (const { requestId, why } of await repair.repairOnce()) logger.warn({ requestId, why }, 'failed a request left pending');
      logger.debug({ batches: await resumeBatches(batchDeps) }, 'batches not ended are running');
      const expired = await expireTestResults(expiryDeps);
      if (expired.length > 0) logger.info({ results: expired.length }, "deleted test keys' expired results");
    },
    config.PENDING_REPAIR_INTERVAL_MS,
    (error) => logger.error({ err: error }, 'housekeeping failed'),
  );
  lifetime.defer(() => housekeeping.stop());
};
