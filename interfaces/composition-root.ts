import type { Logger } from 'pino';
import type { Config } from '../infrastructure/config/config.js';
import { createPrometheusMetrics } from '../infrastructure/metrics/prometheus-metrics.js';
import { connectTemporal } from '../infrastructure/temporal/temporal-connection.js';
import type { WorkflowBundle } from '../infrastructure/temporal/temporal-worker.js';
import { prebuiltOrCachedBundle } from '../infrastructure/temporal/workflow-bundle-cache.js';
import { renderingDisabled } from '../infrastructure/temporal/rendering-disabled.js';
import { createTemporalRenderOrchestrator } from '../infrastructure/temporal/temporal-render-orchestrator.js';
import { exportsSpans, startTracing } from '../infrastructure/tracing/tracing.js';
import { createApiServices } from './composition/api-services.js';
import { openFoundation, type Foundation } from './composition/foundation.js';
import { readinessCheck } from '../infrastructure/system/health-checks.js';
import { createLifetime } from '../infrastructure/system/lifetime.js';
import { resumeBatches } from '../application/batches/resume-batches/resume-batches.js';
import type { RenderOrchestrator } from '../application/ports/render-orchestrator.js';
import { createPendingRepair } from '../application/renders/pending-repair.js';
import { expireTestResults } from '../application/results/expire-test-results/expire-test-results.js';
import type { Lifetime } from '../infrastructure/system/lifetime.js';
import { runPeriodically } from '../infrastructure/system/periodic-task.js';
import { startRenderWorker } from './composition/render-worker.js';
import type { AppServices } from './http/app-services.js';

/** A process's foundation (foundation.ts), the use cases REST and tRPC call, and how to stop it all. */
export type Runtime = Foundation & {
  readonly config: Config;
  readonly logger: Logger;
  readonly services: AppServices;
  close(): Promise<void>;
};

export interface RuntimeOptions {
  /** Follow the event log into the read models (the API process, and CLI commands that read them). */
  readonly runProjections: boolean;
  /**
   * 'worker': connect to Temporal and render in this process (npm start, npm run worker);
   * 'client': start renders, leave the work to workers elsewhere; 'off': no Temporal at all (admin CLI).
   */
  readonly rendering: 'worker' | 'client' | 'off';
  /** A pre-built workflow bundle; tests build one per run instead of one per worker. */
  readonly workflowBundle?: WorkflowBundle;
}

const processRole = (options: RuntimeOptions): string => {
  if (options.rendering === 'off') return 'cli';
  if (options.rendering === 'client') return 'api';
  return options.runProjections ? 'all' : 'worker';
};

/**
 * Every PENDING_REPAIR_INTERVAL_MS: fails requests left pending without a live workflow, starts
 * batches whose workflow may not run, and deletes test keys' results whose link has expired.
 */
const startHousekeeping = (foundation: Foundation, orchestrator: RenderOrchestrator, config: Config, logger: Logger, lifetime: Lifetime): void => {
  const deps = { ...foundation, orchestrator, graceMs: config.PENDING_REPAIR_AFTER_MS, batchSize: 100, limit: 100 };
  const repair = createPendingRepair(deps);
  const housekeeping = runPeriodically(
    async () => {
      for (const { requestId, why } of await repair.repairOnce()) logger.warn({ requestId, why }, 'failed a request left pending');
      logger.debug({ batches: await resumeBatches(deps) }, 'batches not ended are running');
      const expired = await expireTestResults(deps);
      if (expired.length > 0) logger.info({ results: expired.length }, "deleted test keys' expired results");
    },
    config.PENDING_REPAIR_INTERVAL_MS,
    (error) => logger.error({ err: error }, 'housekeeping failed'),
  );
  lifetime.defer(() => housekeeping.stop());
};

/**
 * The one place where adapters meet ports (emmett's composition root): the foundation every
 * process stands on, a render worker where this process renders, and the API's use cases.
 */
export const createRuntime = async (config: Config, logger: Logger, options: RuntimeOptions): Promise<Runtime> => {
  const { runProjections, rendering } = options;
  const lifetime = createLifetime(logger);
  const traced = exportsSpans(config);
  const tracing = startTracing({ enabled: traced, serviceName: config.OTEL_SERVICE_NAME, role: processRole(options) });
  // Deferred first, so it closes last: the spans of everything else's shutdown are sent too.
  lifetime.defer(() => tracing.shutdown());
  // One registry per process: the API's requests, this process's renders and pool, its projections.
  const metrics = createPrometheusMetrics();
  // Bundling takes seconds of CPU: it overlaps the start of PostgreSQL and Temporal instead of following them,
  // and only happens when the workflow sources changed since the last start on this data folder.
  const bundle = rendering === 'worker' ? (options.workflowBundle ? Promise.resolve(options.workflowBundle) : prebuiltOrCachedBundle(config.WORKFLOW_BUNDLE_PATH, config.DATA_DIR, { traced }, logger)) : undefined;
  bundle?.catch(() => {});
  try {
    const foundation = await openFoundation(config, logger, lifetime, { runProjections });
    if (runProjections) metrics.watchProjections(foundation);
    // Where this process's Temporal SDK serves its metrics: the configured port, or a free loopback one (temporal-worker.ts).
    const metricsBindAddress = config.TEMPORAL_METRICS_PORT === undefined ? undefined : `${config.HOST}:${config.TEMPORAL_METRICS_PORT}`;
    const temporal =
      rendering === 'off'
        ? null
        : await connectTemporal({ address: config.TEMPORAL_ADDRESS, namespace: config.TEMPORAL_NAMESPACE, dataDir: config.DATA_DIR, logger, ...(bundle ? { workers: { metricsBindAddress } } : {}) });
    if (temporal) lifetime.defer(() => temporal.close());
    const orchestrator = temporal
      ? createTemporalRenderOrchestrator({ client: temporal.client, taskQueue: config.TEMPORAL_TASK_QUEUE, eagerStart: temporal.workerConnection !== null })
      : renderingDisabled;
    // The client shares its connection with the worker when this process runs one (connectTemporal's `workers`).
    const worker =
      temporal?.workerConnection && bundle
        ? await startRenderWorker(foundation, config, logger, lifetime, {
            connection: temporal.workerConnection,
            workflowBundle: await bundle,
            metrics,
            metricsBindAddress,
            workflowSpans: tracing.workflowSpans,
            orchestrator,
            readModelsHere: runProjections ? foundation.projections : undefined,
          })
        : null;
    // Only a process that follows the log sees the pending rows, and only one with Temporal can tell a live workflow.
    if (runProjections && temporal) startHousekeeping(foundation, orchestrator, config, logger, lifetime);
    const operations = {
      recordHttpRequest: metrics.recordHttpRequest,
      scrapeMetrics: metrics.scrape,
      readiness: readinessCheck(foundation, { runProjections, temporal: temporal ? (deadlineMs) => temporal.ping(deadlineMs) : null }),
    };
    const services = createApiServices(foundation, orchestrator, config, operations, lifetime, worker);
    return { ...foundation, config, logger, services, close: () => lifetime.close() };
  } catch (error) {
    await lifetime.close();
    throw error;
  }
};
