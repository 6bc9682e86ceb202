import { readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { descendantsOf, isChromium, readArgv } from './process-cpu.js';

/**
 * Memory of a service's process tree by family, read from /proc: the service's own RSS, and the
 * summed PSS (proportional set size: shared pages split between the processes sharing them, so
 * sums do not count Chromium's shared libraries once per renderer) of each family under it.
 */

export const MEMORY_FAMILIES = ['node', 'chromium', 'postgres', 'temporal'] as const;
export type MemoryFamily = (typeof MEMORY_FAMILIES)[number];

export interface MemorySample {
  /** Seconds since the sampler started. */
  readonly atSeconds: number;
  /** The service process's resident set, MB. */
  readonly nodeRssMb: number;
  /** Summed PSS per family, MB (node: the service process alone). */
  readonly pssMb: Record<MemoryFamily, number>;
  /** Processes counted per family. */
  readonly processes: Record<MemoryFamily, number>;
}

const KB_PER_MB = 1024;

/** A `Name:   123 kB` line of a /proc file, in MB; 0 when the process is gone or the line missing. */
const kbLine = (file: string, name: string): number => {
  try {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(readFileSync(file, 'utf8'));
    return match ? Number(match[1]) / KB_PER_MB : 0;
  } catch {
    return 0;
  }
};

/** The binary a process runs, whatever it made of its argv (Chromium's helpers rewrite theirs into one string). */
const executableOf = (pid: number): string => {
  try {
    return path.basename(readlinkSync(`/proc/${pid}/exe`));
  } catch {
    return '';
  }
};

const familyOf = (pid: number): MemoryFamily | null => {
  const argv = readArgv(pid);
  if (isChromium(argv) || isChromium([executableOf(pid)])) return 'chromium';
  const binary = path.basename(argv[0] ?? '');
  if (binary === 'postgres' || binary.startsWith('postgres:')) return 'postgres';
  if (binary === 'temporal' || argv.some((arg) => /(^|\/)temporal$/.test(arg))) return 'temporal';
  return null;
};

export const sampleMemory = (servicePid: number, atSeconds: number): MemorySample => {
  const pssMb: Record<MemoryFamily, number> = { node: kbLine(`/proc/${servicePid}/smaps_rollup`, 'Pss'), chromium: 0, postgres: 0, temporal: 0 };
  const processes: Record<MemoryFamily, number> = { node: 1, chromium: 0, postgres: 0, temporal: 0 };
  for (const pid of descendantsOf(servicePid)) {
    const family = familyOf(pid);
    if (!family) continue;
    pssMb[family] += kbLine(`/proc/${pid}/smaps_rollup`, 'Pss');
    processes[family] += 1;
  }
  return { atSeconds, nodeRssMb: kbLine(`/proc/${servicePid}/status`, 'VmRSS'), pssMb, processes };
};

/** All families' PSS of a sample together, MB. */
export const summedPss = (sample: MemorySample): number => MEMORY_FAMILIES.reduce((total, family) => total + sample.pssMb[family], 0);

/** Samples a process tree every `everyMs` until stopped, which answers the sample of the largest summed PSS (`from` included). */
export const watchPeakMemory = (rootPid: number, everyMs: number, from: MemorySample = sampleMemory(rootPid, 0)): (() => MemorySample) => {
  let peak = from;
  const watch = setInterval(() => {
    const sample = sampleMemory(rootPid, 0);
    if (summedPss(sample) > summedPss(peak)) peak = sample;
  }, everyMs);
  return () => {
    clearInterval(watch);
    return peak;
  };
};

/** Least-squares slope of `value` against time, per minute; NaN with fewer than two points. */
export const slopePerMinute = (points: readonly { readonly atSeconds: number; readonly value: number }[]): number => {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const meanT = points.reduce((sum, point) => sum + point.atSeconds, 0) / n;
  const meanV = points.reduce((sum, point) => sum + point.value, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const { atSeconds, value } of points) {
    covariance += (atSeconds - meanT) * (value - meanV);
    variance += (atSeconds - meanT) ** 2;
  }
  return variance === 0 ? Number.NaN : (covariance / variance) * 60;
};
