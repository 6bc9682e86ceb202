import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CpuWindow, SamplerRequest } from '../cpu-sampler.worker.js';
import { cpu, ms, print, runConcurrent, statsOf, type Stats } from '../measure.js';
import { summedPss, watchPeakMemory, type MemorySample } from '../memory-sampler.js';
import { chromiumBrowsersUnder, CLOCK_TICKS, readStat } from '../process-cpu.js';
import type { BenchThread } from '../threads.js';

/*
 * One phase of bench:gotenberg: a system loaded with one output at the bench's clients for its
 * seconds, after a warm-up, with the CPU of its whole process tree, the Chromium browsers it ran and
 * its peak summed PSS. Both systems go through the same phase.
 */

export type Output = 'pdf' | 'jpeg';

export interface Phase {
  readonly round: number;
  readonly system: string;
  readonly output: Output;
  readonly stats: Stats;
  /** CPU-seconds per request: the root process (node, gotenberg) alone, the families under it, all together. */
  readonly cpu: { readonly root: number; readonly chromium: number; readonly temporal: number; readonly postgres: number; readonly other: number; readonly total: number };
  /** Chromium processes first seen in the phase, per request: renderers started per conversion show here. */
  readonly newChromium: number;
  /** Chromium browser processes seen while loaded: more than the system keeps at once when it restarts them. */
  readonly browsers: number;
  /** The binaries those browsers ran: the two systems do not drive the same build of Chromium. */
  readonly chromiumBinaries: readonly string[];
  /** The sample of the largest summed PSS while loaded. */
  readonly peak: MemorySample;
}

/** A system as the phases see it: the root of its process tree, a folder its far processes name, one request. */
export interface System {
  readonly name: string;
  readonly pid: number;
  readonly dataDir: string;
  send(output: Output, index: number): Promise<void>;
}

/** Rounds of clients' requests before each measured phase: pages warm, Gotenberg's Chromium launched. */
const WARM_UP_ROUNDS = 3;
/** A Chromium just past its warm-up is still busy for a moment with its own start-up work. */
const SETTLE_MS = 2_000;
/** Work a phase's requests cause after their answers (projections, workflow completion) is counted in a tail. */
const CPU_TAIL_MS = 300;
const PSS_EVERY_MS = 250;

/** The CPU seconds a process has used itself, its reaped children apart (those are counted in their families). */
const ownSeconds = (pid: number) => (readStat(pid)?.ownTicks ?? Number.NaN) / CLOCK_TICKS;

/** Measures a phase of `system` in `round`. */
export type MeasurePhase = (system: System, output: Output, round: number) => Promise<Phase>;

/**
 * The phases of one bench run, each with card indices no earlier phase used. The /proc sampler runs
 * in a thread of its own (scripts/bench/cpu-sampler.worker.ts) so that its 100 ms samples do not wait
 * on the clients, which run here with fetch, the same for both systems: each system is a process tree
 * of its own, so the bench's CPU is in neither's figures.
 */
export const phaseMeasurer = ({ sampler, clients, seconds }: { sampler: BenchThread<SamplerRequest, unknown>; clients: number; seconds: number }): MeasurePhase => {
  let nextIndex = 0;
  const takeIndex = () => nextIndex++;
  return async (system, output, round) => {
    await runConcurrent({ concurrency: clients, maxCount: clients * WARM_UP_ROUNDS, maxMs: 120_000 }, async () => {
      await system.send(output, takeIndex());
      return 0;
    });
    await sleep(SETTLE_MS);
    await sampler.call({ kind: 'configure', rootPid: system.pid, dataDir: system.dataDir });
    const stopWatchingMemory = watchPeakMemory(system.pid, PSS_EVERY_MS);
    const browsers = new Set<number>();
    const binaries = new Set<string>();
    // A browser is a child of the system's own process: a renderer Chromium forks without a zygote (Gotenberg's --no-zygote) shows the browser's command line until it execs.
    const seeBrowsers = () => {
      for (const { pid, argv } of chromiumBrowsersUnder(system.pid)) {
        if (readStat(pid)?.ppid !== system.pid) continue;
        browsers.add(pid);
        binaries.add(argv[0] ?? '?');
      }
    };
    seeBrowsers();
    const watchBrowsers = setInterval(seeBrowsers, PSS_EVERY_MS);
    const rootBefore = ownSeconds(system.pid);
    await sampler.call({ kind: 'start' });
    let window: CpuWindow;
    let stats: Stats;
    let peak: MemorySample;
    try {
      const run = await runConcurrent({ concurrency: clients, maxCount: Number.MAX_SAFE_INTEGER, maxMs: seconds * 1000 }, async () => {
        const started = performance.now();
        await system.send(output, takeIndex());
        return performance.now() - started;
      });
      stats = statsOf(run);
      await sleep(CPU_TAIL_MS);
    } finally {
      clearInterval(watchBrowsers);
      peak = stopWatchingMemory();
      window = (await sampler.call({ kind: 'stop' })) as CpuWindow;
    }
    const root = ownSeconds(system.pid) - rootBefore;
    const { families } = window;
    // rawChromium stays empty here (no raw browser is named to the sampler); counted in chromium should it not.
    const chromium = families.chromium + families.rawChromium;
    const total = root + chromium + families.temporal + families.postgres + families.other;
    const per = (spent: number) => spent / stats.n;
    const phase: Phase = {
      round,
      system: system.name,
      output,
      stats,
      cpu: { root: per(root), chromium: per(chromium), temporal: per(families.temporal), postgres: per(families.postgres), other: per(families.other), total: per(total) },
      newChromium: per(window.newProcesses.chromium + window.newProcesses.rawChromium),
      browsers: browsers.size,
      chromiumBinaries: [...binaries],
      peak,
    };
    print(`  round ${round}, ${system.name} ${output} c${clients}: n=${stats.n} p50 ${ms(stats.p50)} ms, ${stats.perSecond.toFixed(2)}/s, ${cpu(phase.cpu.total)} CPU-s/request, peak PSS ${summedPss(peak).toFixed(0)} MB`);
    return phase;
  };
};

const QUIET_WINDOW_MS = 2_000;
const QUIET_SHARE = 0.1;

/**
 * How busy the machine's CPUs were over a couple of seconds, with neither system running: the
 * figures are only comparable when this is near zero before each system (one system at a time on a
 * quiet machine). The load average would not tell, since it still carries the previous system's run.
 */
export const checkQuiet = async (before: string) => {
  const busy = () => os.cpus().reduce((sum, { times }) => ({ busy: sum.busy + times.user + times.nice + times.sys + times.irq, all: sum.all + times.user + times.nice + times.sys + times.irq + times.idle }), { busy: 0, all: 0 });
  const start = busy();
  await sleep(QUIET_WINDOW_MS);
  const end = busy();
  const share = (end.busy - start.busy) / (end.all - start.all);
  print(`${before}: the machine's CPUs ${(share * 100).toFixed(0)}% busy over ${QUIET_WINDOW_MS / 1000} s${share > QUIET_SHARE ? ' - NOT QUIET: the figures will carry the other work' : ''}`);
};

