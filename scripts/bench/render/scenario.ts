import { setTimeout as sleep } from 'node:timers/promises';
import type { CpuWindow, SamplerRequest } from '../cpu-sampler.worker.js';
import { cpu, ms, print, type RunResult, type Stats, statsOf } from '../measure.js';
import type { BenchThread } from '../threads.js';

/** Work a run's renders cause after their answers (projections, workflow completion) is counted in a tail. */
export const CPU_TAIL_MS = 300;

/** CPU-seconds per render of a measured run, by process family. */
export interface CpuPerRender {
  /** The scenario's own Chromium: the raw browser for raw runs, the pool's browsers otherwise. */
  readonly chromium: number;
  /** The node process (service, projections, worker, raw runs' puppeteer client) minus the bench's threads. */
  readonly node: number;
  readonly temporal: number;
  readonly postgres: number;
  /** The other side's idle Chromium and any other child of this process. */
  readonly other: number;
  readonly total: number;
  /** Not in total: the bench's HTTP client thread and /proc sampler thread. */
  readonly client: number;
  readonly sampler: number;
  /** Chromium processes first seen during the run, per render (fresh renderers show up here). */
  readonly newChromiumProcesses: number;
}

export interface Scenario {
  readonly label: string;
  /** raw-pdf and pdf: the 50-page document, reported apart from the card. */
  readonly kind: 'raw' | 'miss' | 'hit' | 'bare-http' | 'raw-pdf' | 'pdf' | 'raw-capture' | 'capture';
  readonly output: 'json' | 'image' | null;
  readonly concurrency: number;
  readonly stats: Stats;
  readonly cpu: CpuPerRender;
  readonly window: CpuWindow;
}

/** Runs `work` inside a CPU window (plus the tail) and divides every family's CPU by its renders. */
export type Measure = (
  label: string,
  kind: Scenario['kind'],
  output: Scenario['output'],
  concurrency: number,
  work: () => Promise<{ run: RunResult; clientCpu: number }>,
) => Promise<Scenario>;

export const measureWith =
  (sampler: BenchThread<SamplerRequest, unknown>): Measure =>
  async (label, kind, output, concurrency, work) => {
    await sampler.call({ kind: 'start' });
    const { run, clientCpu } = await work();
    await sleep(CPU_TAIL_MS);
    const window = (await sampler.call({ kind: 'stop' })) as CpuWindow;
    const n = run.latencies.length;
    const raw = kind === 'raw' || kind === 'raw-pdf' || kind === 'raw-capture';
    const own = raw ? 'rawChromium' : 'chromium';
    const { families } = window;
    const node = window.process - window.sampler - clientCpu;
    const other = families.other + (raw ? families.chromium : families.rawChromium);
    const total = families[own] + node + families.temporal + families.postgres + other;
    const scenario: Scenario = {
      label,
      kind,
      output,
      concurrency,
      stats: statsOf(run),
      window,
      cpu: {
        chromium: families[own] / n,
        node: node / n,
        temporal: families.temporal / n,
        postgres: families.postgres / n,
        other: other / n,
        total: total / n,
        client: clientCpu / n,
        sampler: window.sampler / n,
        newChromiumProcesses: window.newProcesses[own] / n,
      },
    };
    print(`  ${label}: n=${n} p50 ${ms(scenario.stats.p50)} ms, ${scenario.stats.perSecond.toFixed(1)}/s, ${cpu(scenario.cpu.total)} CPU-s/render`);
    return scenario;
  };

export const findScenario = (scenarios: readonly Scenario[], kind: Scenario['kind'], output: Scenario['output'], concurrency: number) =>
  scenarios.find((scenario) => scenario.kind === kind && scenario.output === output && scenario.concurrency === concurrency);

/** The card's raw run at `concurrency`, which its misses are read against. */
export const rawCardAt = (scenarios: readonly Scenario[], concurrency: number) => findScenario(scenarios, 'raw', null, concurrency);

/** A table's columns of CPU by process family, and a scenario's cells under them. */
export const CPU_COLUMNS = ['chromium', 'node', 'temporal', 'postgres', 'other', 'total'] as const;
export const cpuCells = (c: CpuPerRender) => CPU_COLUMNS.map((family) => cpu(c[family]));

/** A request's CPU by process, as a miss explains itself with. */
export const cpuSplit = (c: CpuPerRender) =>
  `${ms(c.total * 1000)} CPU-ms (Chromium ${ms(c.chromium * 1000)}, node ${ms(c.node * 1000)}, Temporal ${ms(c.temporal * 1000)}, PostgreSQL ${ms(c.postgres * 1000)}, other ${ms(c.other * 1000)}; load generator ${ms(c.client * 1000)} apart)`;
