import { emptyTotals, FamilyCpu, FAMILIES, type Family, type FamilyTotals } from './process-cpu.js';
import { processCpuSeconds, serveThread, threadCpuSeconds } from './threads.js';

/** Samples the process families every SAMPLE_INTERVAL_MS while a run is measured (see process-cpu.ts). */
const SAMPLE_INTERVAL_MS = 100;

export type SamplerRequest =
  | { readonly kind: 'configure'; readonly rootPid: number; readonly dataDir: string }
  | { readonly kind: 'rawBrowsers'; readonly pids: readonly number[] }
  | { readonly kind: 'start' }
  | { readonly kind: 'stop' }
  | { readonly kind: 'census' };

export interface CpuWindow {
  /** CPU seconds of each family over the window. */
  readonly families: FamilyTotals;
  /** CPU seconds of the whole node process (service and bench threads) over the window. */
  readonly process: number;
  /** CPU seconds of this sampler thread over the window: the measuring's own cost. */
  readonly sampler: number;
  readonly samples: number;
  readonly seconds: number;
  /** Processes of each family first seen during the window (renderers that lived under 100 ms may be missed here, not in the CPU). */
  readonly newProcesses: Record<Family, number>;
}

let meter: FamilyCpu | null = null;
let window: { start: FamilyTotals; process: number; sampler: number; startedAt: number; timer: NodeJS.Timeout; samples: number; seenBefore: Record<Family, number> } | null = null;

const seenCounts = (cpu: FamilyCpu) => {
  const counts = emptyTotals();
  for (const family of FAMILIES) counts[family] = cpu.seen.get(family)?.size ?? 0;
  return counts;
};

serveThread<SamplerRequest, unknown>((request) => {
  switch (request.kind) {
    case 'configure':
      meter = new FamilyCpu({ rootPid: request.rootPid, dataDir: request.dataDir });
      meter.sample(true);
      return null;
    case 'rawBrowsers':
      meter?.setRawBrowserPids(request.pids);
      return null;
    case 'census':
      if (!meter) throw new Error('sampler not configured');
      meter.sample(true);
      return meter.census();
    case 'start': {
      const cpu = meter;
      if (!cpu) throw new Error('sampler not configured');
      if (window) clearInterval(window.timer);
      const sampler = threadCpuSeconds();
      const seenBefore = seenCounts(cpu);
      const start = cpu.sample(true);
      const timer = setInterval(() => {
        cpu.sample();
        if (window) window.samples++;
      }, SAMPLE_INTERVAL_MS);
      window = { start, process: processCpuSeconds(), sampler, startedAt: performance.now(), timer, samples: 1, seenBefore };
      return null;
    }
    case 'stop': {
      const cpu = meter;
      const open = window;
      if (!cpu || !open) throw new Error('no CPU window open');
      clearInterval(open.timer);
      window = null;
      const end = cpu.sample(true);
      const families = emptyTotals();
      const seen = seenCounts(cpu);
      const newProcesses = emptyTotals();
      for (const family of FAMILIES) {
        families[family] = end[family] - open.start[family];
        newProcesses[family] = seen[family] - open.seenBefore[family];
      }
      return {
        families,
        process: processCpuSeconds() - open.process,
        sampler: threadCpuSeconds() - open.sampler,
        samples: open.samples + 1,
        seconds: (performance.now() - open.startedAt) / 1000,
        newProcesses,
      } satisfies CpuWindow;
    }
  }
});
