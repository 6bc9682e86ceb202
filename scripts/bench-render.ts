/*
 * npm run bench:render: the whole service in this process (API, projections, a render worker) on a
 * fresh embedded PostgreSQL and Temporal dev server under a temporary DATA_DIR, measured against
 * the physical limit in the same run: puppeteer capturing the same card as JPEG on warm, reused
 * pages of a Chromium launched with the pool's own flags. Beside latency and throughput it reports
 * the CPU-seconds per render of each process family (scripts/bench/process-cpu.ts explains how
 * they are read from /proc), the Temporal history of a render and the step breakdown of a cache
 * miss. A benchmark, not a test: it prints issue 10's targets beside the figures and fails only
 * when the service does.
 *
 * The HTTP client and the /proc sampler run in worker threads (scripts/bench/threads.ts), so they
 * share no event loop with the service and their CPU is taken out of the service's.
 *
 * Pool settings come from the environment like the service's (BROWSERS=2 npm run bench:render).
 * BENCH_ONLY=hits measures the cache-hit path alone (seconds instead of minutes); BENCH_ONLY=captures
 * the URL captures alone (with the card's template rendered as JPEG, PNG and PDF, the CPU they are
 * held to); BENCH_ONLY=fit what fitting text adds per fitted element alone.
 *
 * A 50-page PDF (an A4 report, scripts/bench/report.ts) is measured the same way: the service's
 * render beside Chromium's own page.pdf of the same document on a warm page of the raw browser.
 *
 * Each section is a module of scripts/bench/render/, handed the service under test and the bench's
 * threads (bench-context.ts); this file runs them in order and stops everything however it ends.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../infrastructure/config/logger.js';
import type { SamplerRequest } from './bench/cpu-sampler.worker.js';
import type { LoadReply, LoadRequest } from './bench/load.worker.js';
import { print, table } from './bench/measure.js';
import { MEMORY_FAMILIES, summedPss, type MemorySample } from './bench/memory-sampler.js';
import { measureNpmStartMemory, type NpmStartMemory } from './bench/npm-start-memory.js';
import type { RenderBench } from './bench/render/bench-context.js';
import { measureHits, printCacheHits } from './bench/render/cache-hits.js';
import { measureMisses, warmUpService } from './bench/render/cache-misses.js';
import { printCpuTable, printLatencyTable } from './bench/render/card-tables.js';
import { printCardTargets } from './bench/render/card-targets.js';
import { fetchMissHistories, printHistoryTimeline, printMissBreakdown, printTemporalPerMiss } from './bench/render/miss-history.js';
import { measureRawCard, printRawCardPhases } from './bench/render/raw-card.js';
import { launchRawChromium } from './bench/render/raw-chromium.js';
import { measureRawReportPdf, measureServiceReportPdf, printReportPdf } from './bench/render/report-pdf.js';
import { startRenderService } from './bench/render/service-under-test.js';
import { allowCapturePageHost, measureCaptures } from './bench/render/url-captures.js';
import { printCaptures } from './bench/render/url-captures-report.js';
import { measureTextFitCost } from './bench/text-fit-cost.js';
import { startThread, type BenchThread } from './bench/threads.js';

const HITS_ONLY = process.env.BENCH_ONLY === 'hits';
/** BENCH_ONLY=captures: URL captures alone (scripts/bench/render/url-captures.ts). */
const CAPTURES_ONLY = process.env.BENCH_ONLY === 'captures';
/** BENCH_ONLY=fit: what text fitting adds per fitted element alone. */
const FIT_ONLY = process.env.BENCH_ONLY === 'fit';
const TEXT_FIT_TARGET_MS = 10;

/** Issue 24's memory figures: the service as npm start runs it, idle and at its peak under image load. */
const printMemory = ({ idle, peak, rendersUnderLoad }: NpmStartMemory) => {
  print();
  print('== memory of npm start: summed PSS in MB (shared pages split between the processes sharing them) of the service process, its Chromium, PostgreSQL and Temporal');
  const memoryRow = (label: string, sample: MemorySample) => [
    label,
    summedPss(sample).toFixed(0),
    ...MEMORY_FAMILIES.map((family) => `${sample.pssMb[family].toFixed(0)} (${sample.processes[family]})`),
  ];
  print(table(['when', 'total', 'node', 'chromium (procs)', 'postgres (procs)', 'temporal (procs)'], [memoryRow('idle after warm-up', idle), memoryRow(`image load c8, peak (${rendersUnderLoad} renders)`, peak)]));
};

const textFit = async ({ call }: RenderBench) => {
  const cost = await measureTextFitCost(call);
  print(
    `text fitting: ${cost.elements} fitted TEXT components p50 ${cost.fittedP50Ms.toFixed(1)} ms, the same unfitted ${cost.plainP50Ms.toFixed(1)} ms: ` +
      `${cost.perElementMs.toFixed(2)} ms per fitted element (goal <= ${TEXT_FIT_TARGET_MS}) ${cost.perElementMs <= TEXT_FIT_TARGET_MS ? 'met' : 'MISSED'}`,
  );
};

const captures = async (bench: RenderBench) => printCaptures(bench, await measureCaptures(bench));

/**
 * The card's cache misses against the raw browser, and the 50-page PDF likewise: the service warmed
 * up and watched idle, the raw browser's runs while the service sits idle, then the service's.
 */
const measureMissesAgainstRaw = async (bench: RenderBench) => {
  const idle = await warmUpService(bench);
  const raw = await launchRawChromium(bench, { withoutEgressProxy: false });
  bench.stops.push(async () => {
    if (raw.browser.connected) await raw.browser.close();
  });
  await bench.sampler.call({ kind: 'rawBrowsers', pids: raw.pid ? [raw.pid] : [] });
  const rawCard = await measureRawCard(bench, raw);
  const rawPdf = await measureRawReportPdf(bench, raw.browser);
  await raw.browser.close();
  const misses = await measureMisses(bench);
  const servicePdf = await measureServiceReportPdf(bench);
  return { idle, rawCard, rawPdf, misses, servicePdf };
};

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-bench-'));
// The embedded PostgreSQL may run as user postgres, which must be able to enter this folder.
await chmod(dataDir, 0o755);
// Errors only by default: the service's warnings would interleave with the report (LOG_LEVEL=warn shows them).
const logger = createLogger(process.env.LOG_LEVEL ?? 'error');
const stops: (() => Promise<unknown>)[] = [];
const stopAll = async () => {
  for (const stop of stops.reverse()) await stop().catch((error: unknown) => logger.error({ err: error }, 'bench shutdown step failed'));
  await rm(dataDir, { recursive: true, force: true });
};
const benchStarted = performance.now();
const printFinished = () => print(`bench finished in ${((performance.now() - benchStarted) / 1000).toFixed(1)} s`);

try {
  print(`render benchmark: ${os.cpus().length} cores, node ${process.version}, data in ${dataDir}`);
  const sampler: BenchThread<SamplerRequest, unknown> = startThread(new URL('./bench/cpu-sampler.worker.ts', import.meta.url));
  stops.push(() => sampler.stop());
  const load: BenchThread<LoadRequest, LoadReply> = startThread(new URL('./bench/load.worker.ts', import.meta.url));
  stops.push(() => load.stop());
  // First, on a quiet machine: the service as npm start runs it, in a process of its own.
  const memory = HITS_ONLY || CAPTURES_ONLY || FIT_ONLY ? null : await measureNpmStartMemory();
  if (memory) printMemory(memory);

  allowCapturePageHost();
  const bench = await startRenderService({ dataDir, logger, stops, sampler, load, benchStarted });
  if (FIT_ONLY || CAPTURES_ONLY) {
    await (FIT_ONLY ? textFit(bench) : captures(bench));
    printFinished();
    await stopAll();
    process.exit(process.exitCode ?? 0);
  }

  const missRun = HITS_ONLY ? null : await measureMissesAgainstRaw(bench);
  const hits = await measureHits(bench);
  const scenarios = [...(missRun ? [...missRun.rawCard.scenarios, ...missRun.misses.scenarios] : []), ...hits.scenarios];

  printLatencyTable(bench, scenarios, missRun?.rawCard.header ?? null, hits.uncached);
  printCpuTable(scenarios, missRun?.idle ?? null);
  // The single-client miss renders' workflows are all finished by now.
  const histories = missRun ? await fetchMissHistories(bench, missRun.misses.c1JsonSamples) : null;
  if (histories) printTemporalPerMiss(histories, scenarios);
  printCardTargets({ scenarios, withMisses: missRun !== null, memory, hits });
  if (missRun && histories) {
    printMissBreakdown(histories.histories, bench.probes.storeCalls);
    printHistoryTimeline(histories.histories);
    printRawCardPhases(missRun.rawCard.phases);
    printReportPdf(missRun.rawPdf, missRun.servicePdf);
  }
  printCacheHits(hits);

  if (missRun) {
    await captures(bench);
    await textFit(bench);
  }

  print();
  printFinished();
} catch (error) {
  process.exitCode = 1;
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
} finally {
  await stopAll();
}
