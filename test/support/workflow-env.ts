import { randomUUID } from 'node:crypto';
import proto from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Context } from '@temporalio/activity';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll } from 'vitest';
import type { StoredFile } from '../../domain/renders/render-events.js';
import type { DomainError } from '../../domain/shared/errors.js';
import { requireTemporalBinary } from '../../infrastructure/temporal/temporal-binary.js';
import type { CaptureActivities } from '../../workflows/capture.activities.js';
import { translated } from '../../workflows/failures.js';
import type { RenderActivities } from '../../workflows/render.activities.js';
import type { VideoRenderActivities } from '../../workflows/video-render.activities.js';
import { videoTaskQueueOf } from '../../workflows/video-render.workflow.js';
import type { WebhookRetryPolicy } from '../../application/webhooks/deliver-webhook/retry-policy.js';
import type { WebhookActivities } from '../../workflows/webhook.activities.js';
import { workflowBundleOf } from './workflow-bundles.js';

export interface WorkflowTestEnvironment {
  /**
   * Runs one workflow to its end as `requestId` (production's workflow ids are request ids), its
   * activities served by the given stubs.
   */
  execute<Input, Result>(workflow: (input: Input) => Promise<Result>, requestId: string, input: Input, activities: WorkerActivities): Promise<Result>;
  /** The types of the events in the history of the workflow run as `requestId` (EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, ...). */
  eventTypes(requestId: string): Promise<string[]>;
}

/*
 * Temporal's time-skipping test server is downloaded from the internet at first use, which these
 * machines cannot reach, and no package registry they reach ships it. So the tests run on the CLI's
 * dev server that `npm run setup` builds: a real server, without time skipping. Waits are real, so
 * a test gives the waits it controls (the webhook retry policy) milliseconds, not hours; the
 * server's timers are made to fire on time rather than up to a second late, which would otherwise
 * round every retry up to a second.
 */
const startEnvironment = (): Promise<TestWorkflowEnvironment> =>
  TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: requireTemporalBinary() },
      ip: '127.0.0.1',
      extraArgs: ['--dynamic-config-value', 'history.timerProcessorMaxTimeShift="10ms"'],
    },
  });

/**
 * One Temporal server and one worker for the test file that calls this, started in its beforeAll
 * and stopped in its afterAll. A worker takes about half a second to load the workflow bundle, so
 * the file's tests share it rather than each creating one; each workflow still reaches only its
 * own test's stubs, found by its workflow id.
 */
export const useWorkflowEnvironment = (): WorkflowTestEnvironment => {
  const taskQueue = `workflow-test-${randomUUID()}`;
  const stubsOf = new Map<string, WorkerActivities>();
  let env: TestWorkflowEnvironment | undefined;
  let workers: Worker[] = [];
  let running: Promise<void>[] = [];

  const routed = Object.fromEntries(
    Object.keys(stubActivities().activities).map((name) => [
      name,
      (input: never) => {
        const workflowId = Context.current().info.workflowExecution?.workflowId ?? '';
        const stubs = stubsOf.get(workflowId) as Record<string, (input: never) => Promise<unknown>> | undefined;
        const stub = stubs?.[name];
        if (!stub) throw new Error(`no stub of ${name} for workflow ${workflowId}`);
        return stub(input);
      },
    ]),
  );

  beforeAll(async () => {
    // Expected failures of stubbed activities are logged at WARN; a failing test says what matters.
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    let workflowBundle;
    [env, workflowBundle] = await Promise.all([startEnvironment(), workflowBundleOf(false)]);
    // Video work has a queue of its own, as in production.
    workers = await Promise.all([
      Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle, activities: routed }),
      Worker.create({ connection: env.nativeConnection, taskQueue: videoTaskQueueOf(taskQueue), activities: routed }),
    ]);
    running = workers.map((worker) => worker.run());
  });

  afterAll(async () => {
    for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
    await Promise.all(running);
    await env?.teardown();
  });

  return {
    async execute(workflow, requestId, input, activities) {
      if (!env) throw new Error('the workflow environment is not started: call useWorkflowEnvironment() at the top of the file');
      stubsOf.set(requestId, activities);
      try {
        return await env.client.workflow.execute(workflow, { workflowId: requestId, taskQueue, args: [input] });
      } finally {
        stubsOf.delete(requestId);
      }
    },
    async eventTypes(requestId) {
      if (!env) throw new Error('the workflow environment is not started: call useWorkflowEnvironment() at the top of the file');
      const { events } = await env.client.workflow.getHandle(requestId).fetchHistory();
      return (events ?? []).map((event) => proto.temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? String(event.eventType));
    },
  };
};

/** Every activity a production worker registers; any workflow may call any of them. */
export type WorkerActivities = RenderActivities & CaptureActivities & VideoRenderActivities & WebhookActivities;

export const STORED_FILE: StoredFile = { storageKey: 'org-1/request-1/out.png', fileName: 'out.png', contentType: 'image/png', bytes: 68, width: 1, height: 1 };
/** Log positions the stubs answer, so a test can tell which recording an outcome came from. */
export const COMPLETED_AT = 41;
export const FAILED_AT = 42;

/** Milliseconds where production waits seconds and hours: the server these tests run on cannot skip time. */
export const QUICK_WEBHOOK_RETRIES: WebhookRetryPolicy = {
  initialIntervalMs: 50,
  maximumIntervalMs: 200,
  retryForMs: 60_000,
  maximumAttempts: 0,
  attemptTimeoutMs: 5_000,
};

/** Activities that all succeed at once, recorded; `overrides` replace the ones a test makes fail. */
export const stubActivities = (overrides: Partial<WorkerActivities> = {}) =>
  recording<WorkerActivities>({
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
    recordCompletion: async () => COMPLETED_AT,
    recordFailure: async () => FAILED_AT,
    webhookRetryPolicy: async () => QUICK_WEBHOOK_RETRIES,
    deliverWebhook: async () => ({ status: 'delivered', attempts: 1 }),
    abandonWebhook: async () => {},
    ...overrides,
  });

export interface ActivityCall {
  readonly name: string;
  readonly input: unknown;
}

/** Stubbed activities that note every call, in order, before doing what the stub does. */
const recording = <A extends Record<string, (input: never) => Promise<unknown>>>(
  activities: A,
): { activities: A; calls: ActivityCall[]; names: () => string[] } => {
  const calls: ActivityCall[] = [];
  const wrapped = Object.fromEntries(
    Object.entries(activities).map(([name, stub]) => [
      name,
      (input: never) => {
        calls.push({ name, input });
        return stub(input);
      },
    ]),
  ) as A;
  return { activities: wrapped, calls, names: () => calls.map((call) => call.name) };
};

/**
 * A step refused with a domain error, as the worker's activities refuse it: through the same
 * translation into a typed, possibly non-retryable ApplicationFailure.
 */
export const refusedWith =
  (error: DomainError) =>
  (): Promise<never> =>
    translated(() => Promise.reject(error));
