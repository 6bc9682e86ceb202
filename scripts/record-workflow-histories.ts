import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Context } from '@temporalio/activity';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker, bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { StoredFile } from '../domain/renders/render-events.js';
import { DomainError } from '../domain/shared/errors.js';
import { requireTemporalBinary } from '../infrastructure/temporal/temporal-binary.js';
import { bundleWorkflows, workflowTracingSinks } from '../infrastructure/temporal/temporal-worker.js';
import { historyToJSON, patchIdsIn, type PatchHistory } from '../test/workflows/replay/patch-histories.js';
import type { WorkerActivities } from '../test/support/workflow-env.js';
import { translated } from '../workflows/failures.js';
import { videoTaskQueueOf } from '../workflows/video-render.workflow.js';

/*
 * Records the workflow histories that test/workflows/replay.workflow.test.ts replays, so that a
 * change to the workflows that would break workflows already running fails a test.
 *
 *   node --import ./infrastructure/system/typescript-imports.ts scripts/record-workflow-histories.ts
 *
 * For every patch ID in workflows/*.workflow.ts (patched / deprecatePatch) it records two histories
 * into test/workflows/histories/<workflowType>-<patchId>-<old|new>.json:
 *  - old: the workflow run by the code from before the patch (test/workflows/replay/pre-patch.workflows.ts,
 *    copies of the workflow files from git at the patch commit's parent), under the production
 *    workflow type, as a workflow started before a deployment of the patch would have run;
 *  - new: the workflow run by the current code (workflows/index.ts), taking the patched branch.
 * Each runs on a Temporal dev server of its own (the CLI `npm run setup` builds; nothing is kept)
 * with stubbed activities, as the workflow tests do, and is fetched with fetchHistory and saved as
 * the JSON of Temporal's history export (historyToJSON of test/workflows/replay/patch-histories.ts,
 * which says why not the SDK's own). The script checks that each old history has no marker of its
 * patch and each new one has it, so a recording cannot silently take the wrong branch.
 *
 * A new patch needs a recording here (the replay test fails until both of its histories exist);
 * the old branch's code goes into test/workflows/replay/ the same way. Re-recording rewrites the
 * files with new timestamps and run IDs: commit them only when a recording is added or changed.
 */

const root = new URL('../', import.meta.url);
const historiesDir = new URL('test/workflows/histories/', root);
const workflowTracingInterceptors = createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

const STORED_FILE: StoredFile = { storageKey: 'org-1/request-1/out.mp4', fileName: 'out.mp4', contentType: 'video/mp4', bytes: 68, width: 1, height: 1 };

/** Every activity succeeds at once; a recording overrides the ones it makes fail. */
const stubs = (overrides: Partial<WorkerActivities> = {}): WorkerActivities => ({
  chargeCredits: async () => {},
  refundCredits: async () => {},
  produceRender: async () => STORED_FILE,
  produceRenderNow: async () => STORED_FILE,
  produceCapture: async () => STORED_FILE,
  produceCaptureNow: async () => STORED_FILE,
  planVideo: async () => ({ framesTotal: 150, segments: [{ start: 0, end: 150 }] }),
  produceVideo: async () => STORED_FILE,
  produceVideoSegment: async () => {},
  joinVideoSegments: async () => STORED_FILE,
  discardVideoSegments: async () => {},
  recordCompletion: async () => 41,
  recordFailure: async () => 42,
  webhookRetryPolicy: async () => ({ initialIntervalMs: 50, maximumIntervalMs: 200, retryForMs: 60_000, maximumAttempts: 0, attemptTimeoutMs: 5_000 }),
  deliverWebhook: async () => ({ status: 'delivered', attempts: 1 }),
  abandonWebhook: async () => {},
  ...overrides,
});

/** Refused as the worker's activities refuse a domain error: a typed, final ApplicationFailure. */
const refused = (code: 'validation' | 'payment_required', message: string) => () => translated(() => Promise.reject(new DomainError(code, message)));

interface Recording extends PatchHistory {
  readonly code: 'pre-patch' | 'current';
  readonly webhook: boolean;
  readonly activities: WorkerActivities;
}

const recordings: Recording[] = [
  // Both call sites of the patch: a render that cannot be made (refunded) with its production an
  // activity, and a sync render refused at the charge with every step a local activity.
  ...(['old', 'new'] as const).flatMap((branch): Recording[] => [
    {
      workflowType: 'renderWorkflow',
      patchId: 'webhook-on-failure',
      branch,
      code: branch === 'old' ? 'pre-patch' : 'current',
      webhook: true,
      activities: stubs({ produceRender: refused('validation', 'The template could not be rendered: script timed out') }),
    },
    {
      workflowType: 'syncRenderWorkflow',
      patchId: 'webhook-on-failure',
      branch,
      code: branch === 'old' ? 'pre-patch' : 'current',
      webhook: true,
      activities: stubs({ chargeCredits: refused('payment_required', 'Not enough credits: 30 needed, 2 left') }),
    },
  ]),
  { workflowType: 'videoRenderWorkflow', patchId: 'video-segments', branch: 'old', code: 'pre-patch', webhook: false, activities: stubs() },
  {
    workflowType: 'videoRenderWorkflow',
    patchId: 'video-segments',
    branch: 'new',
    code: 'current',
    webhook: false,
    activities: stubs({
      planVideo: async () => ({
        framesTotal: 900,
        segments: [
          { start: 0, end: 300 },
          { start: 300, end: 600 },
          { start: 600, end: 900 },
        ],
      }),
    }),
  },
];

const fileOf = ({ workflowType, patchId, branch }: PatchHistory) => `${workflowType}-${patchId}-${branch}.json`;

Runtime.install({ logger: new DefaultLogger('ERROR') });
const [env, current, prePatch] = await Promise.all([
  TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: requireTemporalBinary() },
      ip: '127.0.0.1',
      extraArgs: ['--dynamic-config-value', 'history.timerProcessorMaxTimeShift="10ms"'],
    },
  }),
  // Traced, as every bundle was before untraced ones existed: the replay test replays these on both kinds.
  bundleWorkflows({ traced: true }),
  bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('test/workflows/replay/pre-patch.workflows.ts', root)),
    workflowInterceptorModules: [workflowTracingInterceptors],
    logger: { log: () => {}, trace: () => {}, debug: () => {}, info: () => {}, warn: console.warn, error: console.error },
  }),
]);

try {
  // Each workflow reaches its own recording's stubs, found by its workflow id.
  const byWorkflowId = new Map(recordings.map((recording) => [fileOf(recording).replace(/\.json$/, ''), recording]));
  const activities = Object.fromEntries(
    Object.keys(stubs()).map((name) => [
      name,
      (input: never) => {
        const workflowId = Context.current().info.workflowExecution?.workflowId ?? '';
        const stub = byWorkflowId.get(workflowId)?.activities[name as keyof WorkerActivities] as ((input: never) => Promise<unknown>) | undefined;
        if (!stub) throw new Error(`no stub of ${name} for workflow ${workflowId}`);
        return stub(input);
      },
    ]),
  );
  const taskQueueOf = { 'pre-patch': 'replay-recording-pre-patch', current: 'replay-recording' } as const;
  const bundleOf: Record<Recording['code'], WorkflowBundleWithSourceMap> = { 'pre-patch': prePatch, current };
  const workers = await Promise.all(
    (['pre-patch', 'current'] as const).flatMap((code) => [
      Worker.create({ connection: env.nativeConnection, taskQueue: taskQueueOf[code], workflowBundle: bundleOf[code], activities, sinks: workflowTracingSinks() }),
      // Video work has a queue of its own, as in production.
      Worker.create({ connection: env.nativeConnection, taskQueue: videoTaskQueueOf(taskQueueOf[code]), activities }),
    ]),
  );

  const recordAll = async () => {
    await mkdir(historiesDir, { recursive: true });
    for (const [workflowId, recording] of byWorkflowId) {
      const handle = await env.client.workflow.start(recording.workflowType, {
        workflowId,
        taskQueue: taskQueueOf[recording.code],
        args: [{ requestId: workflowId, webhook: recording.webhook }],
      });
      const result = await handle.result();
      const history = await handle.fetchHistory();
      const patches = patchIdsIn(history);
      const marked = patches.includes(recording.patchId);
      if (marked !== (recording.branch === 'new')) {
        throw new Error(`${workflowId} ${marked ? 'has' : 'lacks'} the ${recording.patchId} marker (markers: ${patches.join(', ') || 'none'}): it did not take the ${recording.branch} branch`);
      }
      await writeFile(new URL(fileOf(recording), historiesDir), `${historyToJSON(history)}\n`);
      console.log(`${fileOf(recording)}: ${history.events?.length ?? 0} events, ${JSON.stringify(result)}`);
    }
  };
  const recorded = recordAll();
  // Every worker is stopped before the server, whether the recording failed or not.
  const stopped = await Promise.allSettled(workers.map((worker) => worker.runUntil(recorded)));
  const failure = stopped.find((outcome) => outcome.status === 'rejected');
  if (failure) throw failure.reason;
} finally {
  await env.teardown();
}
