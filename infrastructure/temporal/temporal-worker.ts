import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Resource } from '@opentelemetry/resources';
import { NoopSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor, makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import type { Duration } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { freePort } from '../system/free-port.js';
import { TYPESCRIPT_FLAGS } from '../system/node-flags.js';

const workflowsPath = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));

/**
 * Workflow spans (RunWorkflow, StartActivity) are made by interceptors inside the bundle, and they
 * carry the trace to the activities in Temporal's headers. Only a traced bundle has them: the
 * sandbox evaluates every module a workflow imports again for each workflow, and OpenTelemetry's
 * hundreds of modules plus the spans they make are a large share of the worker's CPU per render,
 * for spans that go nowhere with tracing off. Neither kind adds a command to a history, so a
 * workflow started under one replays under the other.
 */
const workflowTracingInterceptors = createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

/*
 * How this process's workers run workflows, where the SDK is patched (patches/@temporalio+worker+*.patch,
 * applied by npm install's postinstall; the SDK has no option for the first two):
 * - No watchdog thread per call into the sandbox. Temporal runs every call (several per activation)
 *   under node:vm's `timeout`, and Node starts and joins a thread for each (nodejs/node#47739):
 *   CPU on every render that two cores then cannot spend on renders.
 * - No stack trace per workflow promise. For its stack trace queries the SDK hooks every promise a
 *   workflow makes and builds an Error with a source-mapped stack for it; the queries then answer
 *   empty (a stuck workflow is found from its history and the worker's logs instead).
 * - Workflows on the process's main thread (the SDK's `debugMode`, whose only other effect is the
 *   timeout above): no structured clone of every activation and its result to a worker thread and
 *   back. Without the promise hook nothing slows the main thread's own promises.
 * The last two together spare node CPU on every render, which two cores turn into more renders.
 * What the watchdog and the thread guarded against is a workflow that never yields: the workflows
 * are this repository's own deterministic code (no template runs there), replayed against recorded
 * histories in its tests, and the server still times such a task out. Should the SDK be installed
 * unpatched, its defaults stay (a thread, a watchdog, stack traces) and the start says so.
 */
const sdkIsPatched = (): boolean => {
  const require = createRequire(import.meta.url);
  const reusableVm = require('@temporalio/worker/lib/workflow/reusable-vm.js') as { sandboxCallsMayRunUnwatched?: boolean };
  const vmShared = require('@temporalio/worker/lib/workflow/vm-shared.js') as { globalHandlers: object };
  return reusableVm.sandboxCallsMayRunUnwatched === true && 'collectStackTraces' in vmShared.globalHandlers;
};

export interface WorkflowSandboxOptions {
  readonly isolateExecutionTimeout: Duration;
  readonly debugMode?: boolean;
  readonly workflowStackTraces?: boolean;
}

/** The sandbox options of this process's workers: the cheapest the installed SDK allows (`patched`: whether it carries the patch). */
export const workflowSandboxOptions = (warn: (message: string) => void, patched = sdkIsPatched()): WorkflowSandboxOptions => {
  if (patched) return { isolateExecutionTimeout: Infinity, debugMode: true, workflowStackTraces: false };
  warn('@temporalio/worker is not patched (patches/, npm install applies it): workflows run on a thread of their own, with a watchdog thread per call and a stack per promise');
  return { isolateExecutionTimeout: '5s' };
};

/** A workflow bundle and whether it holds the tracing interceptors. */
export interface WorkflowBundle extends WorkflowBundleWithSourceMap {
  readonly traced: boolean;
}

export interface BundleChoice {
  /** With the tracing interceptors, for a process that exports spans. */
  readonly traced: boolean;
}

/**
 * The sink the bundled interceptors hand finished workflow spans to. Every worker that runs workflows
 * registers it, or the SDK logs an error for each span; without a processor the spans are dropped.
 */
export const workflowTracingSinks = (spans?: { readonly processor: SpanProcessor; readonly resource: Resource }) => ({
  exporter: makeWorkflowExporter(spans?.processor ?? new NoopSpanProcessor(), spans?.resource ?? Resource.empty()),
});

/** Bundling takes seconds: test runs do it once and share the bundle between workers. */
export const bundleWorkflows = async ({ traced }: BundleChoice): Promise<WorkflowBundle> => {
  const { code, sourceMap } = await bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: traced ? [workflowTracingInterceptors] : [],
    logger: quietBundlerLogger,
  });
  return { code, sourceMap, traced };
};

const bundleScript = fileURLToPath(new URL('../../scripts/bundle-workflows.ts', import.meta.url));

/**
 * Bundles into the file target in a process of its own. Bundling leaves a few hundred MB behind it
 * that the process keeps (freed, not returned to the system: a worker thread keeps it too), which a
 * long-running service should not carry for a one-off job at start.
 */
export const bundleWorkflowsApart = async (target: string, { traced }: BundleChoice): Promise<void> => {
  await promisify(execFile)(process.execPath, [...TYPESCRIPT_FLAGS, bundleScript, target, ...(traced ? ['--traced'] : [])]);
};

/** A bundle written at image build time (scripts/bundle-workflows.ts): a worker starts without bundling for seconds. */
export const loadWorkflowBundle = async (bundlePath: string): Promise<WorkflowBundle> => {
  const bundle = JSON.parse(await readFile(bundlePath, 'utf8')) as Partial<WorkflowBundle>;
  if (typeof bundle.code !== 'string' || typeof bundle.sourceMap !== 'string') throw new Error(`${bundlePath} is not a workflow bundle written by scripts/bundle-workflows.ts`);
  // Bundles written before there were two kinds always held the interceptors.
  return { code: bundle.code, sourceMap: bundle.sourceMap, traced: bundle.traced ?? true };
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
  /**
   * The connection of this process's Temporal client (connectToWorkers), which its owner closes: a
   * workflow that client starts on this worker's queue gets its first task in the start's answer.
   */
  readonly connection: NativeConnection;
  readonly namespace: string;
  readonly taskQueue: string;
  readonly activities: object;
  /** The workflows this worker runs: a bundle, or `none` for a worker of activities only. */
  readonly workflows: WorkflowBundle | 'none';
  /** Activities running at once in this worker; the browser pool bounds renders anyway. */
  readonly maxConcurrentActivities: number;
  /**
   * Stopping waits this long for activities in flight, then gives up on them: Temporal retries
   * them on another worker, so a bounded shutdown loses nothing.
   */
  readonly shutdownWithinMs: number;
  /** `host:port` where the SDK serves its own Prometheus metrics; a free loopback port when absent. */
  readonly metricsBindAddress?: string;
  /** Where the spans of the workflows this worker runs are exported (see startTracing). */
  readonly workflowSpans?: { readonly processor: SpanProcessor; readonly resource: Resource };
}

export interface RunningWorker {
  /** Where this process's Temporal SDK serves its Prometheus metrics. */
  readonly sdkMetricsUrl: string;
  /** Finishes activities in flight, then stops polling. */
  stop(): Promise<void>;
}

let sdkMetricsUrl: Promise<string> | undefined;
const FREE_METRICS_PORT_ATTEMPTS = 5;

/**
 * The SDK logs every worker state change at INFO; the service's own logs say what matters. Its
 * metrics (polls, slots, task latencies) come from the Rust core, which serves them itself: on the
 * configured address, else on a free loopback port that only this process's /metrics reads. The
 * runtime is one per process: the first worker's options hold.
 */
const installRuntime = (metricsBindAddress: string | undefined): Promise<string> =>
  (sdkMetricsUrl ??= (async () => {
    for (let attempt = 1; ; attempt++) {
      const bindAddress = metricsBindAddress ?? `127.0.0.1:${await freePort()}`;
      try {
        Runtime.install({
          logger: new DefaultLogger('WARN'),
          telemetryOptions: { metrics: { prometheus: { bindAddress, countersTotalSuffix: true, useSecondsForDurations: true } } },
        });
        return `http://${bindAddress.replace(/^0\.0\.0\.0:/, '127.0.0.1:')}/metrics`;
      } catch (error) {
        // A port found free can be taken by another process before the core binds it; the runtime
        // is installed only once it binds, so another free port is tried. A configured address is not.
        const taken = metricsBindAddress === undefined && attempt < FREE_METRICS_PORT_ATTEMPTS && String(error).includes('Address already in use');
        if (!taken) throw error;
      }
    }
  })());

/**
 * A connection through the SDK's core, for a client whose process also runs the workers: they share
 * it, and a start the client asks to be eager is answered with the workflow's first task, which the
 * core hands straight to the local worker. The runtime is installed first, as a worker would.
 */
export const connectToWorkers = async (address: string, { metricsBindAddress }: { readonly metricsBindAddress?: string }): Promise<NativeConnection> => {
  await installRuntime(metricsBindAddress);
  return NativeConnection.connect({ address });
};

export const startTemporalWorker = async (options: TemporalWorkerOptions): Promise<RunningWorker> => {
  const metricsUrl = await installRuntime(options.metricsBindAddress);
  const worker = await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: options.activities,
    ...(options.workflows === 'none' ? {} : { workflowBundle: { code: options.workflows.code, sourceMap: options.workflows.sourceMap } }),
    // Each activity runs in a span whose parent is the workflow's, carried in Temporal's headers.
    interceptors: {
      activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })],
    },
    sinks: workflowTracingSinks(options.workflowSpans),
    ...workflowSandboxOptions((message) => process.stderr.write(`[temporal worker] ${message}\n`)),
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivities,
    maxConcurrentLocalActivityExecutions: options.maxConcurrentActivities * 4,
    shutdownGraceTime: Math.floor(options.shutdownWithinMs / 2),
    shutdownForceTime: options.shutdownWithinMs,
  });
  const running = worker.run();
  return {
    sdkMetricsUrl: metricsUrl,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
};
