import { setTimeout as sleep } from 'node:timers/promises';
import type { CpuWindow } from '../cpu-sampler.worker.js';
import type { LoadSample } from '../load.worker.js';
import type { FamilyCpu } from '../process-cpu.js';
import type { RenderBench } from './bench-context.js';
import { CONCURRENCY, type Concurrency } from './raw-card.js';
import type { Scenario } from './scenario.js';
import { print } from '../measure.js';

/** How long the service is watched doing nothing, for reading the per-render figures. */
export const IDLE_WINDOW_MS = 2_000;
const MISS_RUN = { maxMs: 8_000, maxCount: { 1: 40, 4: 80, 8: 120 } satisfies Record<Concurrency, number> };
const WARM_UP = { maxMs: 20_000 };

/** Renders until the service is warm, then the processes it measures and its CPU when idle. */
export const warmUpService = async ({ sampler, loadRun }: RenderBench): Promise<CpuWindow> => {
  print('warming up the service');
  await loadRun('miss', 'json', 1, { ...WARM_UP, maxCount: 3 });
  await loadRun('miss', 'json', 4, { ...WARM_UP, maxCount: 8 });
  await loadRun('miss', 'image', 2, { ...WARM_UP, maxCount: 4 });
  const { counts, others } = (await sampler.call({ kind: 'census' })) as ReturnType<FamilyCpu['census']>;
  print(`measured processes now: pool Chromium ${counts.chromium}, Temporal ${counts.temporal}, PostgreSQL ${counts.postgres}, other children ${counts.other} (${others.join(', ')})`);
  await sampler.call({ kind: 'start' });
  await sleep(IDLE_WINDOW_MS);
  return (await sampler.call({ kind: 'stop' })) as CpuWindow;
};

export interface MissRun {
  readonly scenarios: Scenario[];
  /** The renders of the single-client json run, whose store calls were recorded: the ones broken down. */
  readonly c1JsonSamples: LoadSample[];
}

/** Cache misses (cache: false, data of their own) as JSON and as the image itself, at each concurrency. */
export const measureMisses = async ({ probes, measured, loadRun }: RenderBench): Promise<MissRun> => {
  // Warmed again right before it is measured, as the raw pages were: it sat idle for the raw runs,
  // and the first renders after a quiet spell are slower than the rest.
  print('warming up the service again (idle while raw ran)');
  await loadRun('miss', 'json', 1, { ...WARM_UP, maxCount: 4 });
  await loadRun('miss', 'image', 1, { ...WARM_UP, maxCount: 4 });

  const scenarios: Scenario[] = [];
  const c1JsonSamples: LoadSample[] = [];
  // The two outputs alternate at each concurrency, so a drift of the machine over the runs (warming
  // pages, a neighbour's load) falls on both alike rather than on whichever came first.
  for (const concurrency of CONCURRENCY) {
    for (const output of ['json', 'image'] as const) {
      // Only single-client runs are broken down: with one render at a time every store call belongs to it.
      const breakDown = output === 'json' && concurrency === 1;
      probes.recordStoreCalls = breakDown;
      scenarios.push(
        await measured(`miss ${output} c${concurrency}`, 'miss', output, concurrency, async () => {
          const reply = await loadRun('miss', output, concurrency, { maxMs: MISS_RUN.maxMs, maxCount: MISS_RUN.maxCount[concurrency] });
          if (breakDown) c1JsonSamples.push(...reply.samples);
          return { run: reply, clientCpu: reply.clientCpu };
        }),
      );
      probes.recordStoreCalls = false;
    }
  }
  return { scenarios, c1JsonSamples };
};
