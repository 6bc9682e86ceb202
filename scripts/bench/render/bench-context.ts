import type { startBenchService } from '../../bench-service.js';
import type { SamplerRequest } from '../cpu-sampler.worker.js';
import type { LoadReply, LoadRequest } from '../load.worker.js';
import type { RunLimits } from '../measure.js';
import type { ServiceApi } from '../service-api.js';
import type { BenchThread } from '../threads.js';
import type { ServiceProbes } from './service-probes.js';
import type { Measure } from './scenario.js';

/*
 * What every section of bench:render is handed: the service under test with its probes, the bench's
 * threads, and the card and report templates it renders. Sections share nothing else.
 */

export const REQUEST_TIMEOUT_MS = 60_000;

type BenchService = Awaited<ReturnType<typeof startBenchService>>;

/** How long a run goes on, its concurrency given apart: to its count or its time, whichever comes first. */
export type RunBounds = Omit<RunLimits, 'concurrency'>;

/** A call of the service's API with the bench's key: the JSON answer, failing on any status from 300 on. */
export type ApiCall = ServiceApi['call'];

/** A counter handing out runs of indices no earlier taker got, from `first` on: the first index of each run. */
export const indicesFrom = (first: number) => {
  let next = first;
  return (count: number) => {
    const taken = next;
    next += count;
    return taken;
  };
};

export interface RenderBench {
  readonly config: BenchService['config'];
  readonly temporal: BenchService['temporal'];
  readonly apiKey: string;
  readonly serverUrl: string;
  /** Each start pushes its stop here; the entry stops them all in reverse, however the bench ends. */
  readonly stops: (() => Promise<unknown>)[];
  readonly sampler: BenchThread<SamplerRequest, unknown>;
  readonly load: BenchThread<LoadRequest, LoadReply>;
  readonly probes: ServiceProbes;
  readonly call: ApiCall;
  readonly measured: Measure;
  /** The card's template and what the service made of it (the raw baseline captures with the same). */
  readonly card: { readonly templateId: string; readonly quality: number; readonly scaleFactor: number };
  /** The 50-page report's template (scripts/bench/report.ts). */
  readonly reportId: string;
  /**
   * The first of `count` card indices no earlier run used: raw captures and the service's misses
   * take theirs from one counter, so every render of the card in the run has data of its own.
   */
  takeIndices(count: number): number;
  /** A run of the card through the load thread: misses with data of their own, or one repeated hit. */
  loadRun(path: 'miss' | 'hit', output: 'json' | 'image', concurrency: number, limits: RunBounds): Promise<LoadReply>;
}
