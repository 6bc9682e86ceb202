import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { EventStore } from '../application/ports/event-store.js';
import type { Config } from '../infrastructure/config/config.js';
import { createPrometheusMetrics } from '../infrastructure/metrics/prometheus-metrics.js';
import type { ProjectionSet } from '../infrastructure/projections/projection-set.js';
import { connectTemporal } from '../infrastructure/temporal/temporal-connection.js';
import type { WorkflowBundle } from '../infrastructure/temporal/temporal-worker.js';
import { prebuiltOrCachedBundle } from '../infrastructure/temporal/workflow-bundle-cache.js';
import { renderingDisabled } from '../infrastructure/temporal/rendering-disabled.js';
import { createTemporalRenderOrchestrator } from '../infrastructure/temporal/temporal-render-orchestrator.js';
import { exportsSpans, startTracing } from '../infrastructure/tracing/tracing.js';
import { createApiServices } from './composition/api-services.js';
import { openFoundation } from './composition/foundation.js';
import { readinessCheck } from '../infrastructure/system/health-checks.js';
import { createLifetime } from '../infrastructure/system/lifetime.js';
import { startHousekeeping } from './composition/housekeeping-loop.js';
import { startRenderWorker, temporalMetricsAddress } from './composition/render-worker.js';
import type { AppServices } from './http/app-services.js';

export interface Runtime {
  readonly config: Config;
  readonly logger: Logger;
  readonly eventStore: EventStore;
  readonly orm: MikroORM;
  readonly projections: ProjectionSet;
  readonly services: AppServices;
  close(): Promise<void>;
}

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
 * The one place where adapters meet ports (emmett's composition root): the foundation every
 * process stands on, a render worker where this process renders, and the API's use cases.
 */
export const createRuntime = async (config: Config, logger: Logger, options: RuntimeOptions): Promise<Runtime> => {
  const lifetime = createLifetime(logger);
  const traced = exportsSpans(config);
  const tracing = startTracing({
    enabled: traced,
    serviceName: config.OTEL_SERVICE_NAME,
    role: processRole(options),
  });
  // Deferred first, so it closes last: the spans of everything else's shutdown are sent too.
  lifetime.defer(() => tracing.shutdown());
  // One registry per process: the API's requests, this process's renders and pool, its projections.
  const metrics = createPrometheusMetrics();
  // Bundling takes seconds of CPU: it overlaps the start of PostgreSQL and Temporal instead of following them,
  // and only happens when the workflow sources changed since the last start on this data folder.
  const workflowBundle = options.rendering === 'worker' ? (options.workflowBundle ? Promise.resolve(options.workflowBundle) : prebuiltOrCachedBundle(config.WORKFLOW_BUNDLE_PATH, config.DATA_DIR, { traced }, logger)) : undefined;
  workflowBundle?.catch(() => {});
  try {
    const foundation = await openFoundation(config, logger, lifetime, { runProjections: options.runProjections });
    if (options.runProjections) metrics.watchProjections(foundation);
    const temporal =
      options.rendering === 'off'
        ? null
        : await connectTemporal({
            address: config.TEMPORAL_ADDRESS,
            namespace: config.TEMPORAL_NAMESPACE,
            dataDir: config.DATA_DIR,
            logger,
            ...(workflowBundle ? { workers: { metricsBindAddress: temporalMetricsAddress(config) } } : {}),
          });
    if (temporal) lifetime.defer(() => temporal.close());
    const orchestrator = temporal
      ? createTemporalRenderOrchestrator({ client: temporal.client, taskQueue: config.TEMPORAL_TASK_QUEUE, eagerStart: temporal.workerConnection !== null })
      : renderingDisabled;
    // The client shares its connection with the worker when this process runs one (connectTemporal's `workers`).
    const worker =
      temporal?.workerConnection && workflowBundle
        ? await startRenderWorker(foundation, config, logger, lifetime, {
            temporalConnection: temporal.workerConnection,
            workflowBundle: await workflowBundle,
            metrics,
            workflowSpans: tracing.workflowSpans,
            orchestrator,
            ...(options.runProjections ? { readModelsHere: foundation.projections } : {}),
          })
        : null;
    // Only a process that follows the log sees the pending rows, and only one with Temporal can tell a live workflow.
    if (options.runProjections && temporal) startHousekeeping(foundation, orchestrator, config, logger, lifetime);
    const { eventStore, orm, projections } = foundation;
    const operations = {
      recordHttpRequest: metrics.recordHttpRequest,
      scrapeMetrics: metrics.scrape,
      readiness: readinessCheck(foundation, { runProjections: options.runProjections, temporal: temporal ? (deadlineMs) => temporal.ping(deadlineMs) : null }),
    };
    return { config, logger, eventStore, orm, projections, services: createApiServices(foundation, orchestrator, config, operations, lifetime, worker), close: () => lifetime.close() };
  } catch (error) {
    await lifetime.close();
    throw error;
  }
};
