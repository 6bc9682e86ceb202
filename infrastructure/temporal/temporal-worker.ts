import { readFile } from 'node:fs/promises';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';

const workflowsPath = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));

/** Bundling takes seconds: test runs do it once and share the bundle between workers. */
export const bundleWorkflows = (): Promise<WorkflowBundleWithSourceMap> => bundleWorkflowCode({ workflowsPath, logger: quietBundlerLogger });

/** A bundle written at image build time (scripts/bundle-workflows.ts): a worker starts without bundling for seconds. */
export const loadWorkflowBundle = async (bundlePath: string): Promise<WorkflowBundleWithSourceMap> => {
  const bundle = JSON.parse(await readFile(bundlePath, 'utf8')) as Partial<WorkflowBundleWithSourceMap>;
  if (typeof bundle.code !== 'string' || typeof bundle.sourceMap !== 'string') throw new Error(`${bundlePath} is not a workflow bundle written by scripts/bundle-workflows.ts`);
  return { code: bundle.code, sourceMap: bundle.sourceMap };
};

const quietBundlerLogger = {
  log: () => {},
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: (message: string) => process.stderr.write(`[workflow bundler] ${message}\n`),
  error: (message: string) => process.stderr.write(`[workflow bundler] ${message}\n`),
};

export interface TemporalWorkerOptions {
  readonly address: string;
  readonly namespace: string;
  readonly taskQueue: string;
  readonly activities: object;
  /** The workflows this worker runs: a bundle, `bundle` to bundle them now, or `none` for a worker of activities only. */
  readonly workflows: WorkflowBundleWithSourceMap | 'bundle' | 'none';
  /** Activities running at once in this worker; the browser pool bounds renders anyway. */
  readonly maxConcurrentActivities: number;
  /**
   * Stopping waits this long for activities in flight, then gives up on them: Temporal retries
   * them on another worker, so a bounded shutdown loses nothing.
   */
  readonly shutdownWithinMs: number;
  /** `host:port` where the SDK serves its own Prometheus metrics; not exported when absent. */
  readonly metricsBindAddress?: string;
}

export interface RunningWorker {
  /** Finishes activities in flight, then stops polling. */
  stop(): Promise<void>;
}

let runtimeInstalled = false;

/**
 * The SDK logs every worker state change at INFO; the service's own logs say what matters. Its
 * metrics (polls, slots, task latencies) come from the Rust core, which serves them on a port of
 * its own rather than through the service's registry. The runtime is one per process: the first worker's options hold.
 */
const installRuntime = (metricsBindAddress: string | undefined) => {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({
    logger: new DefaultLogger('WARN'),
    ...(metricsBindAddress ? { telemetryOptions: { metrics: { prometheus: { bindAddress: metricsBindAddress, countersTotalSuffix: true, useSecondsForDurations: true } } } } : {}),
  });
};

export const startTemporalWorker = async (options: TemporalWorkerOptions): Promise<RunningWorker> => {
  installRuntime(options.metricsBindAddress);
  const connection = await NativeConnection.connect({ address: options.address });
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: options.activities,
    ...(options.workflows === 'none' ? {} : { workflowBundle: options.workflows === 'bundle' ? await bundleWorkflows() : options.workflows }),
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivities,
    maxConcurrentLocalActivityExecutions: options.maxConcurrentActivities * 4,
    shutdownGraceTime: Math.floor(options.shutdownWithinMs / 2),
    shutdownForceTime: options.shutdownWithinMs,
  });
  const running = worker.run();
  return {
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
    },
  };
};
