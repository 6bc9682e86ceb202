import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { DefaultLogger, Runtime, Worker, bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { beforeAll, describe, expect, it } from 'vitest';
import { workflowTracingSinks, type WorkflowBundle } from '../../infrastructure/temporal/temporal-worker.js';
import { workflowBundleOf } from '../support/workflow-bundles.js';
import type { Alteration } from './replay/altered.workflows.js';
import { patchIdsIn, patchIdsInWorkflowCode, readRecordedHistories, workflowTypeOf, type RecordedHistory } from './replay/patch-histories.js';

/*
 * Workflows already running when new code is deployed replay their histories on it, so each
 * patched() branch is guarded by two recorded histories (test/workflows/histories, recorded by
 * scripts/record-workflow-histories.ts): one run by the code from before the patch, one by the
 * code that takes the patch. Both must replay on the current workflows without a determinism error.
 * Replay needs no server: the bundle is made once and each batch of histories runs on one replay worker.
 */

let current: WorkflowBundle[];
let altered: WorkflowBundleWithSourceMap;
let histories: RecordedHistory[];

beforeAll(async () => {
  // The replays meant to fail would each log their determinism error at WARN; the assertions say what matters.
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } });
  [current, altered, histories] = await Promise.all([
    Promise.all([workflowBundleOf(false), workflowBundleOf(true)]),
    bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('./replay/altered.workflows.ts', import.meta.url)),
      workflowInterceptorModules: [createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')],
      logger: { log: () => {}, trace: () => {}, debug: () => {}, info: () => {}, warn: () => {}, error: (message) => process.stderr.write(`${message}\n`) },
    }),
    readRecordedHistories(),
  ]);
});

/** Replays each history as its workflow id on one replay worker; the error of each, by its name. */
const replay = async (workflowBundle: WorkflowBundleWithSourceMap, runs: { name: string; workflowId: string; history: RecordedHistory }[]) => {
  const errors: Record<string, unknown> = {};
  let index = 0;
  const results = Worker.runReplayHistories(
    { workflowBundle, sinks: workflowTracingSinks() },
    runs.map(({ workflowId, history }) => ({ workflowId, history: history.history })),
  );
  for await (const result of results) errors[runs[index++]?.name ?? '?'] = result.error;
  expect(index).toBe(runs.length);
  return errors;
};

const historyNamed = (file: string): RecordedHistory => {
  const history = histories.find((recorded) => recorded.file === file);
  if (!history) throw new Error(`no recorded history ${file}: run scripts/record-workflow-histories.ts`);
  return history;
};

describe('workflow replay', () => {
  it('has an old and a new history of every patch in the workflow code, each through its branch', async () => {
    const patchIds = await patchIdsInWorkflowCode();
    // A patch added without recordings fails here; so do the histories of a patch whose code is gone.
    expect([...new Set(histories.map((recorded) => recorded.patchId))].sort()).toEqual(patchIds);
    for (const patchId of patchIds) {
      const branches = histories.filter((recorded) => recorded.patchId === patchId).map((recorded) => recorded.branch);
      expect(new Set(branches), patchId).toEqual(new Set(['old', 'new']));
    }
    for (const recorded of histories) {
      expect(workflowTypeOf(recorded.history), recorded.file).toBe(recorded.workflowType);
      // The old history never met the patch; the new one recorded taking it.
      expect(patchIdsIn(recorded.history).includes(recorded.patchId), recorded.file).toBe(recorded.branch === 'new');
    }
  });

  // Histories were recorded by traced workers: a worker with tracing off (no interceptors) replays them as well.
  it.each([false, true])('replays every recorded history on the current workflows without a determinism error (traced bundle: %s)', async (traced) => {
    const bundle = current.find((each) => each.traced === traced);
    if (!bundle) throw new Error(`no ${traced ? 'traced' : 'untraced'} bundle`);
    expect(bundle.code.includes('OpenTelemetryInboundInterceptor')).toBe(traced);
    const errors = await replay(
      bundle,
      histories.map((history) => ({ name: history.file, workflowId: history.file.replace(/\.json$/, ''), history })),
    );
    expect(errors).toEqual(Object.fromEntries(histories.map((history) => [history.file, undefined])));
  });

  it('fails a replay when the code changes what a recorded workflow did', async () => {
    const runs: { alteration: Alteration; file: string; fails: boolean }[] = [
      // The copies replay their histories as they are, so each failure below is its alteration's.
      { alteration: 'unaltered', file: 'renderWorkflow-webhook-on-failure-old.json', fails: false },
      { alteration: 'unaltered', file: 'renderWorkflow-webhook-on-failure-new.json', fails: false },
      { alteration: 'unaltered', file: 'videoRenderWorkflow-video-segments-old.json', fails: false },
      { alteration: 'unaltered', file: 'videoRenderWorkflow-video-segments-new.json', fails: false },
      { alteration: 'no-refund', file: 'renderWorkflow-webhook-on-failure-new.json', fails: true },
      // Either side of each patch breaks without its guard.
      { alteration: 'failure-webhook-unguarded', file: 'renderWorkflow-webhook-on-failure-old.json', fails: true },
      { alteration: 'failure-webhook-reverted', file: 'renderWorkflow-webhook-on-failure-new.json', fails: true },
      { alteration: 'segments-unguarded', file: 'videoRenderWorkflow-video-segments-old.json', fails: true },
      { alteration: 'segments-reverted', file: 'videoRenderWorkflow-video-segments-new.json', fails: true },
    ];
    const named = runs.map((run) => ({ ...run, name: `${run.alteration} on ${run.file}` }));
    const errors = await replay(
      altered,
      named.map(({ name, alteration, file }) => ({ name, workflowId: alteration, history: historyNamed(file) })),
    );
    for (const { name, fails } of named) {
      if (fails) expect(errors[name], name).toBeInstanceOf(DeterminismViolationError);
      else expect(errors[name], name).toBeUndefined();
    }
  });
});
