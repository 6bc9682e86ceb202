import { CLOCK_TICKS, descendantStats } from '../process-cpu.js';

/** CPU seconds of this process and each program it started (directly or not), counted while running. */
export const cpuMeter = () => {
  const seen = new Map<number, { name: string; first: number; last: number }>();
  const sample = () => {
    for (const { pid, name, ownTicks } of descendantStats(process.pid)) {
      const cpu = ownTicks / CLOCK_TICKS;
      const known = seen.get(pid);
      if (known) known.last = cpu;
      else seen.set(pid, { name, first: cpu, last: cpu });
    }
  };
  sample();
  const ownStart = process.cpuUsage();
  // Often enough that ffmpeg, which lives as long as one video, is caught shortly before it exits.
  const timer = setInterval(sample, 50);
  return () => {
    clearInterval(timer);
    sample();
    // workers: node processes this one started (render worker processes); services: PostgreSQL, Temporal and the rest.
    const byProgram = { chromium: 0, ffmpeg: 0, workers: 0, services: 0, node: 0 };
    for (const { name, first, last } of seen.values()) {
      const key = name.startsWith('chrom') ? 'chromium' : name === 'ffmpeg' ? 'ffmpeg' : name === 'node' ? 'workers' : 'services';
      byProgram[key] += last - first;
    }
    const own = process.cpuUsage(ownStart);
    byProgram.node = (own.user + own.system) / 1e6;
    return byProgram;
  };
};

export type CpuSeconds = ReturnType<ReturnType<typeof cpuMeter>>;
/** CPU seconds as the tables count them: Chromium, ffmpeg and the node processes that render, not PostgreSQL or Temporal. */
export const cpuTotal = (cpu: CpuSeconds) => cpu.chromium + cpu.ffmpeg + cpu.node + cpu.workers;
