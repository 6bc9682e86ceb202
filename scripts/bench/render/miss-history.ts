import { renderStream } from '../../../domain/renders/render-events.js';
import type { LoadSample } from '../load.worker.js';
import { cpu, median, ms, percentile, print, table } from '../measure.js';
import type { RenderBench } from './bench-context.js';
import { CONCURRENCY } from './raw-card.js';
import { findScenario, type Scenario } from './scenario.js';
import type { StoreCall } from './service-probes.js';
import { localActivityOf, timedEvents, type LocalActivityMarker, type TimedEvent } from '../workflow-history.js';

/*
 * Temporal's share of a cache miss, from the workflow histories of the single-client json renders
 * (all finished by the time they are read): how many events and tasks a render takes, where its
 * time goes step by step beside the store calls it made, and its history as a timeline.
 */

export interface RenderHistory {
  readonly sample: LoadSample;
  readonly events: TimedEvent[];
  /** The local activities of the history's markers, in the worker's clock: what ran inside its workflow tasks. */
  readonly localActivities: LocalActivityMarker[];
}

export interface MissHistories {
  readonly histories: RenderHistory[];
  /** The last history that could not be read, why. */
  readonly error: string;
}

export const fetchMissHistories = async ({ temporal }: RenderBench, samples: readonly LoadSample[]): Promise<MissHistories> => {
  const histories: RenderHistory[] = [];
  let error = '';
  for (const sample of samples) {
    try {
      const history = await temporal.client.workflow.getHandle(sample.requestId).fetchHistory();
      const events = history.events ?? [];
      histories.push({
        sample,
        events: timedEvents(events),
        localActivities: events.flatMap((event) => localActivityOf(event.markerRecordedEventAttributes) ?? []),
      });
    } catch (failure) {
      error = (failure as Error).message;
    }
  }
  return { histories, error };
};

export const printTemporalPerMiss = ({ histories, error }: MissHistories, scenarios: readonly Scenario[]) => {
  print();
  print('== Temporal per cache-miss render');
  if (histories.length === 0) print(`   no workflow history found for the renders (workflowId = requestId): ${error || 'no samples'}`);
  else {
    const counts = histories.map((history) => history.events.length);
    const one = histories[Math.floor(histories.length / 2)] ?? histories[0];
    print(`   history events per render: median ${median(counts)} (min ${Math.min(...counts)}, max ${Math.max(...counts)}, ${histories.length} workflows of the c1 json run)`);
    const kinds = (type: string) => one?.events.filter((event) => event.type === type).length ?? 0;
    print(`   in it: ${kinds('WorkflowTaskScheduled')} workflow tasks, ${kinds('ActivityTaskScheduled')} activity tasks, ${kinds('MarkerRecorded')} markers (local activities)`);
    print(`   one render's history: ${one?.events.map((event) => event.type).join(', ')}`);
  }
  const temporalCpu = CONCURRENCY.map((concurrency) => `c${concurrency} ${cpu(findScenario(scenarios, 'miss', 'json', concurrency)?.cpu.temporal ?? Number.NaN)}`);
  print(`   Temporal server CPU-s per render (json): ${temporalCpu.join(', ')}`);
};

/**
 * Where one cache-miss render's time went: client timings, the wrapped store calls and the
 * workflow history. The steps follow the history's own shape: each workflow task and activity
 * it has, whether the workflow runs its work in activities or as local activities in one task.
 */
const breakdownOf = ({ sample, events, localActivities }: RenderHistory, storeCalls: readonly StoreCall[]) => {
  const calls = storeCalls.filter((entry) => entry.start >= sample.sentAt && entry.end <= sample.receivedAt);
  const requestedAppend = calls.find((entry) => entry.op === 'append' && entry.stream === renderStream(sample.requestId));
  const rows: [string, number][] = [];
  /** Store calls inside a step, labelled under it so that equal labels of different steps stay apart. */
  const within = (step: string, from: number, to: number) => {
    const inside = calls.filter((entry) => entry.start >= from && entry.end <= to);
    const sum = (op: 'append' | 'read', prefix = '') =>
      inside.filter((entry) => entry.op === op && entry.stream.startsWith(prefix)).reduce((total, entry) => total + entry.end - entry.start, 0);
    return [
      [`${step}\u0000  of which appends to account streams`, sum('append', 'account-')],
      [`${step}\u0000  of which appends to render streams`, sum('append', 'render-')],
      [`${step}\u0000  of which stream reads`, sum('read')],
    ] as [string, number][];
  };
  const appendStart = requestedAppend?.start ?? Number.NaN;
  const appendEnd = requestedAppend?.end ?? Number.NaN;
  rows.push(['HTTP in -> RenderRequested append (auth, template, cache lookup, credit check)', appendStart - sample.sentAt]);
  rows.push(['RenderRequested append', appendEnd - appendStart]);
  const first = (type: string, from = 0) => {
    const index = events.findIndex((event, i) => i >= from && event.type === type);
    return { index, at: events[index]?.at ?? Number.NaN };
  };
  rows.push(['workflow start RPC (append done -> WorkflowExecutionStarted)', first('WorkflowExecutionStarted').at - appendEnd]);
  let task = 0;
  let activity = 0;
  for (const [index, event] of events.entries()) {
    if (event.type === 'WorkflowTaskScheduled') {
      task++;
      const started = first('WorkflowTaskStarted', index);
      const completed = first('WorkflowTaskCompleted', index);
      const step = `workflow task ${task} on the worker (local activities run inside it)`;
      rows.push([`workflow task ${task} reaches the worker (scheduled -> started)`, started.at - event.at]);
      rows.push([step, completed.at - started.at]);
      rows.push(...within(step, started.at, completed.at));
      // Inside the task: up to each local activity's completion (an activation of the workflow, then the activity), and after the last.
      const inTask = localActivities.filter((local) => local.completedAt >= started.at && local.completedAt <= completed.at);
      let last = started.at;
      for (const local of inTask) {
        rows.push([`${step}\u0000  until local activity ${local.type} completed (activation + activity)`, local.completedAt - last]);
        last = local.completedAt;
      }
      if (inTask.length > 0) rows.push([`${step}\u0000  last local activity completed -> the task's completion recorded by the server`, completed.at - last]);
    } else if (event.type === 'ActivityTaskScheduled') {
      activity++;
      const started = first('ActivityTaskStarted', index);
      const completed = first('ActivityTaskCompleted', index);
      const step = `activity ${activity} (started -> completed)`;
      rows.push([`activity ${activity} dispatch (scheduled -> started)`, started.at - event.at]);
      rows.push([step, completed.at - started.at]);
      rows.push(...within(step, started.at, completed.at));
    }
  }
  rows.push(['WorkflowExecutionCompleted -> HTTP answer received (negative: answered from the recorded completion first)', sample.receivedAt - first('WorkflowExecutionCompleted').at]);
  rows.push(['total (client)', sample.receivedAt - sample.sentAt]);
  return {
    rows,
    reads: calls.filter((entry) => entry.op === 'read').length,
    appends: calls.filter((entry) => entry.op === 'append').length,
  };
};

export const printMissBreakdown = (histories: readonly RenderHistory[], storeCalls: readonly StoreCall[]) => {
  const breakdowns = histories.map((history) => breakdownOf(history, storeCalls));
  const labels: string[] = [];
  for (const breakdown of breakdowns) for (const [label] of breakdown.rows) if (!labels.includes(label)) labels.push(label);
  print();
  print(`== where a cache miss spends its time (json, c1, ${breakdowns.length} renders; ms)`);
  print(table(['step', 'p50', 'p95'], labels.flatMap((label) => {
    const values = breakdowns.map((breakdown) => breakdown.rows.find(([candidate]) => candidate === label)?.[1] ?? Number.NaN).filter(Number.isFinite);
    return values.length > 0 ? [[label.split('\u0000').at(-1) ?? label, ms(median(values)), ms(percentile(values, 95))]] : [];
  })));
  print(`   event store calls per render: ${median(breakdowns.map((b) => b.reads))} stream reads, ${median(breakdowns.map((b) => b.appends))} appends`);
};

/** The same renders as a timeline of their history, whatever shape the workflow has. */
export const printHistoryTimeline = (histories: readonly RenderHistory[]) => {
  const signature = (history: RenderHistory) => history.events.map((event) => event.type).join(',');
  const bySignature = new Map<string, RenderHistory[]>();
  for (const history of histories) bySignature.set(signature(history), [...(bySignature.get(signature(history)) ?? []), history]);
  const common = [...bySignature.values()].sort((a, b) => b.length - a.length)[0] ?? [];
  if (!common[0]) return;
  print();
  print(`== history timeline of a cache miss (json, c1; median of the ${common.length} renders with the most common history; ms since the request was sent)`);
  print(table(['event', 'at', 'step'], [
    ...common[0].events.map((event, index) => {
      const offsets = common.map((history) => (history.events[index]?.at ?? Number.NaN) - history.sample.sentAt);
      const steps = common.map((history) => (history.events[index]?.at ?? Number.NaN) - (index === 0 ? history.sample.sentAt : (history.events[index - 1]?.at ?? Number.NaN)));
      return [`${index + 1}. ${event.type}`, ms(median(offsets)), ms(median(steps))];
    }),
    ['HTTP answer received', ms(median(common.map((history) => history.sample.receivedAt - history.sample.sentAt))), ms(median(common.map((history) => history.sample.receivedAt - (history.events.at(-1)?.at ?? Number.NaN))))],
  ]));
};
