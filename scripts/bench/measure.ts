export interface RunLimits {
  readonly concurrency: number;
  /** Calls in all; the run ends earlier when maxMs has passed (calls in flight then still finish). */
  readonly maxCount: number;
  readonly maxMs: number;
}

export interface RunResult {
  readonly latencies: number[];
  readonly wallMs: number;
}

/** Calls of `task` on `concurrency` lanes, each lane taking the next index until the count or the time is up. */
export const runConcurrent = async (
  { concurrency, maxCount, maxMs }: RunLimits,
  task: (index: number, lane: number) => Promise<number>,
): Promise<RunResult> => {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + maxMs;
  let next = 0;
  let failed = false;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      try {
        while (!failed && next < maxCount && performance.now() < deadline) latencies.push(await task(next++, lane));
      } catch (error) {
        failed = true;
        throw error;
      }
    }),
  );
  return { latencies, wallMs: performance.now() - started };
};

export const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};
export const median = (values: readonly number[]) => percentile(values, 50);

export interface Stats {
  readonly n: number;
  readonly p50: number;
  readonly p95: number;
  readonly perSecond: number;
}

export const statsOf = ({ latencies, wallMs }: RunResult): Stats => ({
  n: latencies.length,
  p50: median(latencies),
  p95: percentile(latencies, 95),
  perSecond: (latencies.length / wallMs) * 1000,
});

export const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : '-');
export const ratio = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}x` : '-');
export const cpu = (value: number) => (Number.isFinite(value) ? value.toFixed(3) : '-');
export const verdict = (ok: boolean) => (ok ? 'ok' : 'MISS');
/** A duration in ms as seconds, to the hundredth. */
export const seconds = (value: number) => (value / 1000).toFixed(2);

/**
 * A scenario's latency and throughput as a table row: n, p50, p95, rate, and against its raw
 * baseline (when it has one) the p50 as a ratio and the rate as a share.
 */
export const latencyRow = (label: string, stats: Stats, raw: Stats | undefined, rateDigits: number): string[] => [
  label,
  String(stats.n),
  ms(stats.p50),
  ms(stats.p95),
  stats.perSecond.toFixed(rateDigits),
  raw ? ratio(stats.p50 / raw.p50) : '',
  raw ? `${((stats.perSecond / raw.perSecond) * 100).toFixed(0)}%` : '',
];

/** One line of the report on stdout, written as soon as it is known. */
export const print = (text = '') => process.stdout.write(`${text}\n`);

export const table = (header: readonly string[], rows: readonly (readonly string[])[]) => {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
};
