/**
 * npm run bench:soak: the service started as `npm start` starts it (its own embedded PostgreSQL and
 * Temporal dev server, in a fresh data folder), under a steady mixed load for SOAK_MINUTES (30):
 * SOAK_CLIENTS (4) clients render the benchmark card as jpeg, png, webp and pdf in turn, every
 * render a cache miss. Every SOAK_SAMPLE_SECONDS (10) it samples the service's RSS and the summed
 * PSS of its node process, Chromium, PostgreSQL and Temporal. At the end it prints each family's
 * slope after the warm-up (SOAK_WARMUP_MINUTES, 5), p50/p95 of the first and last windows
 * (SOAK_WINDOW_MINUTES, 5, or a third of the run when shorter), the errors, and issue 26's goals;
 * and writes a plot of memory over time (SOAK_PLOT, docs/bench-soak-memory.svg).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../infrastructure/system/free-port.js';
import { dataFor } from './bench/card.js';
import { ms, percentile, table, verdict } from './bench/measure.js';
import { MEMORY_FAMILIES, sampleMemory, slopePerMinute, summedPss, type MemoryFamily, type MemorySample } from './bench/memory-sampler.js';
import { createCardTemplate, startNpmStartService } from './bench/npm-start-service.js';
import { lineChart } from './bench/svg-plot.js';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 4);
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 10);
const WARMUP_MINUTES = Number(process.env.SOAK_WARMUP_MINUTES ?? Math.min(5, MINUTES / 3));
const WINDOW_MINUTES = Number(process.env.SOAK_WINDOW_MINUTES ?? Math.min(5, MINUTES / 3));
const PLOT = process.env.SOAK_PLOT ?? 'docs/bench-soak-memory.svg';
const FORMATS = ['jpeg', 'png', 'webp', 'pdf'] as const;
const COLOURS: Record<MemoryFamily | 'rss', string> = { rss: '#111827', node: '#2563eb', chromium: '#16a34a', postgres: '#9333ea', temporal: '#ea580c' };

const say = (line: string) => process.stdout.write(`${line}\n`);

/** The service's own view of its memory from /metrics (prom-client's default metrics), MB: where RSS growth is, or is not. */
interface HeapSample {
  readonly atSeconds: number;
  readonly heapUsedMb: number;
  readonly externalMb: number;
}

const METRIC_PREFIX = 'render_service_';
const metricMb = (text: string, name: string) => {
  const match = new RegExp(`^${METRIC_PREFIX}${name}(?:\\{[^}]*\\})? ([0-9.e+]+)$`, 'm').exec(text);
  return match ? Number(match[1]) / 2 ** 20 : Number.NaN;
};

const sampleHeap = async (base: string, atSeconds: number): Promise<HeapSample> => {
  const text = await fetch(`${base}/metrics`).then((response) => response.text(), () => '');
  return { atSeconds, heapUsedMb: metricMb(text, 'nodejs_heap_size_used_bytes'), externalMb: metricMb(text, 'nodejs_external_memory_bytes') };
};

interface Answer {
  readonly atSeconds: number;
  readonly ms: number;
  readonly ok: boolean;
  readonly status: number;
}

const main = async () => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-service-soak-'));
  const apiKey = `rk_soak_${randomBytes(16).toString('hex')}`;
  say(`bench:soak: ${MINUTES} min, ${CLIENTS} clients, ${FORMATS.join('/')} in turn, samples every ${SAMPLE_SECONDS} s; data in ${dataDir}`);
  const service = await startNpmStartService({ dataDir, port: await freePort(), apiKey });
  try {
    const template = await createCardTemplate(service, 'Soak card');

    const started = performance.now();
    const elapsed = () => (performance.now() - started) / 1000;
    const endAt = MINUTES * 60;
    const answers: Answer[] = [];
    const errors = new Map<string, number>();
    const samples: MemorySample[] = [];
    const heaps: HeapSample[] = [];

    const sampler = (async () => {
      while (elapsed() < endAt) {
        const sample = sampleMemory(service.pid, elapsed());
        samples.push(sample);
        const heap = await sampleHeap(service.base, sample.atSeconds);
        heaps.push(heap);
        const recent = answers.filter((answer) => answer.atSeconds > sample.atSeconds - 60);
        say(
          `  ${(sample.atSeconds / 60).toFixed(1).padStart(5)} min  rss ${sample.nodeRssMb.toFixed(0)} MB  pss ${MEMORY_FAMILIES.map((family) => `${family} ${sample.pssMb[family].toFixed(0)}`).join(', ')} MB  heap ${heap.heapUsedMb.toFixed(0)} external ${heap.externalMb.toFixed(0)} MB  ` +
            `last minute: ${recent.length} renders, p95 ${ms(percentile(recent.map((answer) => answer.ms), 95))} ms, errors so far ${[...errors.values()].reduce((a, b) => a + b, 0)}`,
        );
        await sleep(SAMPLE_SECONDS * 1000);
      }
    })();

    let next = 0;
    const client = async () => {
      while (elapsed() < endAt) {
        const index = next++;
        const outputFormat = FORMATS[index % FORMATS.length];
        const sent = performance.now();
        let status = 0;
        try {
          status = (await service.api.send('POST', '/api/v2/render', { template, data: dataFor(index), outputFormat })).status;
        } catch (error) {
          errors.set(`network: ${(error as Error).message}`, (errors.get(`network: ${(error as Error).message}`) ?? 0) + 1);
        }
        const ok = status === 200;
        if (!ok && status !== 0) errors.set(`HTTP ${status}`, (errors.get(`HTTP ${status}`) ?? 0) + 1);
        answers.push({ atSeconds: (sent - started) / 1000, ms: performance.now() - sent, ok, status });
        // A client that is refused waits before asking again, as a real one would: errors do not turn the load into a flood of fast refusals.
        if (!ok) await sleep(1_000);
      }
    };
    await Promise.all([sampler, ...Array.from({ length: CLIENTS }, client)]);

    await report({ samples, heaps, answers, errors });
  } finally {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
};

const report = async ({ samples, heaps, answers, errors }: { samples: readonly MemorySample[]; heaps: readonly HeapSample[]; answers: readonly Answer[]; errors: ReadonlyMap<string, number> }) => {
  const warm = WARMUP_MINUTES * 60;
  const after = samples.filter((sample) => sample.atSeconds >= warm);
  const slope = (value: (sample: MemorySample) => number) => slopePerMinute(after.map((sample) => ({ atSeconds: sample.atSeconds, value: value(sample) })));
  const last = samples.at(-1);
  const first = after[0];
  say('');
  say(`== memory (MB): slope per minute after the first ${WARMUP_MINUTES.toFixed(1)} min, least squares over ${after.length} samples`);
  say(
    table(
      ['measure', 'after warm-up', 'at the end', 'slope MB/min'],
      [
        ['node RSS', first?.nodeRssMb.toFixed(0) ?? '-', last?.nodeRssMb.toFixed(0) ?? '-', slope((sample) => sample.nodeRssMb).toFixed(2)],
        ...MEMORY_FAMILIES.map((family) => [`${family} PSS`, first?.pssMb[family].toFixed(0) ?? '-', last?.pssMb[family].toFixed(0) ?? '-', slope((sample) => sample.pssMb[family]).toFixed(2)]),
        ['all PSS', first ? summedPss(first).toFixed(0) : '-', last ? summedPss(last).toFixed(0) : '-', slope(summedPss).toFixed(2)],
        ...(['heapUsedMb', 'externalMb'] as const).map((field) => {
          const warmHeaps = heaps.filter((heap) => heap.atSeconds >= warm && Number.isFinite(heap[field]));
          const label = field === 'heapUsedMb' ? 'node JS heap used' : 'node external (buffers)';
          return [label, warmHeaps[0]?.[field].toFixed(0) ?? '-', warmHeaps.at(-1)?.[field].toFixed(0) ?? '-', slopePerMinute(warmHeaps.map((heap) => ({ atSeconds: heap.atSeconds, value: heap[field] }))).toFixed(2)];
        }),
      ],
    ),
  );

  const windowSeconds = WINDOW_MINUTES * 60;
  // A reduce, not a spread: a long run has more answers than a call may take arguments.
  const end = answers.reduce((latest, answer) => Math.max(latest, answer.atSeconds), 0);
  // The first window starts after the warm-up, as the issue's figures did: a cold start is not a slow-down.
  const firstWindow = answers.filter((answer) => answer.ok && answer.atSeconds >= warm && answer.atSeconds < warm + windowSeconds);
  const lastWindow = answers.filter((answer) => answer.ok && answer.atSeconds >= end - windowSeconds);
  const stats = (window: readonly Answer[]) => ({ n: window.length, p50: percentile(window.map((a) => a.ms), 50), p95: percentile(window.map((a) => a.ms), 95) });
  const early = stats(firstWindow);
  const late = stats(lastWindow);
  say('');
  say(`== latency (ms): the first ${WINDOW_MINUTES.toFixed(1)} min after the warm-up and the last ${WINDOW_MINUTES.toFixed(1)} min`);
  say(
    table(
      ['window', 'renders', 'p50', 'p95', 'renders/s'],
      [
        ['first', String(early.n), ms(early.p50), ms(early.p95), (early.n / windowSeconds).toFixed(2)],
        ['last', String(late.n), ms(late.p50), ms(late.p95), (late.n / windowSeconds).toFixed(2)],
      ],
    ),
  );
  const errorCount = [...errors.values()].reduce((a, b) => a + b, 0);
  say(`renders: ${answers.length}, errors: ${errorCount}${errorCount > 0 ? ` (${[...errors].map(([what, count]) => `${what} x${count}`).join(', ')})` : ''}`);

  const nodeSlope = slope((sample) => sample.nodeRssMb);
  say('');
  say('== goals of issue 26');
  say(
    table(
      ['goal', 'measured', 'target', ''],
      [
        ['node RSS slope after warm-up', `${nodeSlope.toFixed(2)} MB/min`, '< 1 MB/min', verdict(nodeSlope < 1)],
        ['last p95 vs first p95', `${(late.p95 / early.p95).toFixed(2)}x`, '<= 1.2x', verdict(late.p95 / early.p95 <= 1.2)],
        ['errors', String(errorCount), '0', verdict(errorCount === 0)],
      ],
    ),
  );
  await writePlot(samples);
};


const writePlot = async (samples: readonly MemorySample[]) => {
  const minutes = (sample: MemorySample) => sample.atSeconds / 60;
  const svg = lineChart(
    [
      { name: 'node RSS', colour: COLOURS.rss, points: samples.map((sample) => ({ x: minutes(sample), y: sample.nodeRssMb })) },
      ...MEMORY_FAMILIES.map((family) => ({ name: `${family} PSS`, colour: COLOURS[family], points: samples.map((sample) => ({ x: minutes(sample), y: sample.pssMb[family] })) })),
    ],
    {
      title: `Memory under a ${MINUTES}-minute soak (${CLIENTS} clients, ${os.cpus().length} cores)`,
      xLabel: 'minutes',
      yLabel: 'MB',
      marker: { x: WARMUP_MINUTES, label: 'end of warm-up' },
    },
  );
  await mkdir(path.dirname(PLOT), { recursive: true });
  await writeFile(PLOT, svg);
  say(`plot: ${PLOT}`);
};

await main();
