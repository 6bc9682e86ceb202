/*
 * npm run bench:batch: the whole service in this process (API, projections, a render worker) on a
 * fresh embedded PostgreSQL and Temporal dev server, measuring a batch against the same template
 * rendered through POST /api/v2/render in the same run:
 *
 * - rows per second of a 2,000-row png batch, alone, against renders per second at eight clients;
 * - the p95 of another organization's interactive renders during a second batch (BENCH_FAIR_ROWS,
 *   1,000) against the service idle;
 * - the time to the first byte of the batch's ZIP, and this process's peak RSS while it streams;
 * - what a cold account command reads: the account stream folded after 10 and after 10,000 charges;
 * - CPU-seconds per render at eight clients and per batch row, by process family.
 *
 * A benchmark, not a test: it prints the issue's goals beside the figures and fails only when the
 * service does.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createCredits } from '../application/credits/credits.js';
import { systemContextFor } from '../application/shared/request-context.js';
import { onAccountStream } from '../application/shared/stream-commands.js';
import { createLogger } from '../infrastructure/config/logger.js';
import { systemClock, uuidV7Ids } from '../infrastructure/system/clock-and-ids.js';
import { CARD_CSS, CARD_HTML, dataFor, HEIGHT, SAMPLE_DATA, WIDTH } from './bench/card.js';
import type { CpuWindow, SamplerRequest } from './bench/cpu-sampler.worker.js';
import { median, ms, percentile, ratio, runConcurrent, statsOf, table, verdict } from './bench/measure.js';
import { FAMILIES } from './bench/process-cpu.js';
import { serviceApi, type ServiceApi } from './bench/service-api.js';
import { startThread, type BenchThread } from './bench/threads.js';
import { startBenchService } from './bench-service.js';

const BATCH_ROWS = Number(process.env.BENCH_BATCH_ROWS ?? 2_000);
const FAIR_ROWS = Number(process.env.BENCH_FAIR_ROWS ?? 1_000);
const GOALS = { batchVsC8: 0.9, interactiveP95VsIdle: 1.5, coldCommandGrowth: 1.2 };
const logger = createLogger(process.env.LOG_LEVEL ?? 'warn');

const stops: (() => Promise<unknown>)[] = [];
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-batch-'));
stops.push(() => rm(dataDir, { recursive: true, force: true }));

try {
  const sampler: BenchThread<SamplerRequest, unknown> = startThread(new URL('./bench/cpu-sampler.worker.ts', import.meta.url));
  stops.push(() => sampler.stop());
  const { runtime, apiKey, api } = await startBenchService({ dataDir, logger, stops });
  await sampler.call({ kind: 'configure', rootPid: process.pid, dataDir });
  /** CPU-seconds of each process family while `run` runs (the node process: service, bench client and sampler). */
  const measuredCpu = async <T>(run: () => Promise<T>): Promise<[T, CpuWindow]> => {
    await sampler.call({ kind: 'start' });
    const result = await run();
    return [result, (await sampler.call({ kind: 'stop' })) as CpuWindow];
  };
  const cardOf = async (client: ServiceApi) => {
    const { identifier } = await client.call<{ identifier: string }>('POST', '/api/v2/my-templates', { name: 'Bench card', width: WIDTH, height: HEIGHT, editor: 'html-editor', outputFormat: 'png' });
    await client.call('PUT', `/api/v2/my-templates/${identifier}/html-editor`, { html: CARD_HTML, css: CARD_CSS, sampleData: SAMPLE_DATA });
    return identifier;
  };
  const otherOrg = await runtime.services.accounts.openOrganization({ name: 'interactive', credits: 1_000_000 });
  const otherApi = serviceApi(api.baseUrl, (await runtime.services.accounts.issueApiKey(otherOrg, { label: 'bench' })).key);
  const [batchTemplate, interactiveTemplate] = [await cardOf(api), await cardOf(otherApi)];
  let unique = 0;
  const renderOnce = async (client: ServiceApi, template: string) => {
    const started = performance.now();
    await client.call('POST', '/api/v2/render', { template, data: dataFor(unique++) });
    return performance.now() - started;
  };

  process.stderr.write('warming up, then POST /render at 8 clients and interactive renders idle\n');
  await runConcurrent({ concurrency: 4, maxCount: 40, maxMs: 20_000 }, () => renderOnce(api, batchTemplate));
  const [c8Timings, c8Cpu] = await measuredCpu(() => runConcurrent({ concurrency: 8, maxCount: 400, maxMs: 15_000 }, () => renderOnce(api, batchTemplate)));
  const c8 = statsOf(c8Timings);
  const idle = statsOf(await runConcurrent({ concurrency: 1, maxCount: 60, maxMs: 15_000 }, () => renderOnce(otherApi, interactiveTemplate)));

  type BatchState = { done: number; failed: number; startedAt: string | null; finishedAt: string | null };
  const submitBatch = async (rows: number, from: number): Promise<string> =>
    (await api.call<{ identifier: string }>('POST', '/api/v2/batches', { template: batchTemplate, rows: Array.from({ length: rows }, (_, index) => ({ data: dataFor(from + index) })) })).identifier;
  const batchState = (id: string) => api.call<BatchState>('GET', `/api/v2/batches/${id}`);

  process.stderr.write(`a ${BATCH_ROWS}-row batch alone\n`);
  const [alone, batchCpu] = await measuredCpu(async () => {
    const id = await submitBatch(BATCH_ROWS, 1_000_000);
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      if ((await batchState(id)).finishedAt) return id;
    }
  });
  const batch = await batchState(alone);
  const batchSeconds = (Date.parse(batch.finishedAt ?? '') - Date.parse(batch.startedAt ?? '')) / 1000;
  const rowsPerSecond = batch.done / batchSeconds;

  process.stderr.write(`a ${FAIR_ROWS}-row batch, with another organization's renders at one client beside it\n`);
  const beside = await submitBatch(FAIR_ROWS, 2_000_000);
  const during: number[] = [];
  let fair: BatchState;
  for (;;) {
    during.push(await renderOnce(otherApi, interactiveTemplate));
    fair = await batchState(beside);
    if (fair.finishedAt) break;
  }

  process.stderr.write('the batch ZIP\n');
  let peakRss = process.memoryUsage().rss;
  const rssBefore = peakRss;
  const rssSampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  const zipStarted = performance.now();
  const zip = await fetch(`${api.baseUrl}/api/v2/batches/${alone}/zip`, { headers: { 'x-api-key': apiKey } });
  const reader = zip.body?.getReader();
  let firstByteMs = Number.NaN;
  let zipBytes = 0;
  for (;;) {
    const chunk = await reader?.read();
    if (!chunk || chunk.done) break;
    if (Number.isNaN(firstByteMs)) firstByteMs = performance.now() - zipStarted;
    zipBytes += chunk.value.length;
  }
  const zipMs = performance.now() - zipStarted;
  clearInterval(rssSampler);

  process.stderr.write('cold account commands after 10 and 10,000 charges\n');
  const commandDeps = { eventStore: runtime.eventStore, clock: systemClock, ids: uuidV7Ids };
  /** An organization whose current period has had `charges` charges. */
  const chargedOrganization = async (charges: number) => {
    const orgId = await runtime.services.accounts.openOrganization({ name: `ledger-${charges}`, credits: 1_000_000 });
    const credits = createCredits(commandDeps);
    for (let first = 0; first < charges; first += 500) {
      const requestedAt = new Date().toISOString();
      await Promise.all(
        Array.from({ length: Math.min(500, charges - first) }, (_, index) => credits.charge({ orgId, requestId: `bench-${charges}-${first + index}`, credits: 1, requestedAt })),
      );
    }
    return orgId;
  };
  const organizations = { after10: await chargedOrganization(10), after10k: await chargedOrganization(10_000) };
  // Measured once the read models have taken the charges in, as a quiet service would be, the two
  // organizations in turn so that whatever else the process does weighs on both alike.
  await runtime.projections.waitFor((await runtime.eventStore.headPosition()) ?? -1, 120_000);
  const timings = { after10: { settings: [] as number[], firstCharge: [] as number[] }, after10k: { settings: [] as number[], firstCharge: [] as number[] } };
  for (let round = 0; round < 21; round++) {
    for (const which of ['after10', 'after10k'] as const) {
      const orgId = organizations[which];
      const started = performance.now();
      // A settings change: an account command, which reads the account's stream afresh each time.
      const change = { type: 'ChangeAccountSettings' as const, data: { orgId, apiKeyInQuery: round % 2 === 1, now: new Date().toISOString() } };
      await onAccountStream(commandDeps, orgId, change, systemContextFor(orgId, `bench-settings-${which}-${round}`));
      timings[which].settings.push(performance.now() - started);
    }
  }
  // Apart from the settings changes: a first charge of a process folds the period's books.
  for (let round = 0; round < 7; round++) {
    for (const which of ['after10', 'after10k'] as const) {
      const orgId = organizations[which];
      const started = performance.now();
      await createCredits(commandDeps).charge({ orgId, requestId: `bench-cold-${which}-${round}`, credits: 1, requestedAt: new Date().toISOString() });
      timings[which].firstCharge.push(performance.now() - started);
    }
  }
  const after10 = { settings: median(timings.after10.settings), firstCharge: median(timings.after10.firstCharge) };
  const after10k = { settings: median(timings.after10k.settings), firstCharge: median(timings.after10k.firstCharge) };

  const perUnit = (window: CpuWindow, units: number) => [...FAMILIES.filter((family) => family !== 'rawChromium').map((family) => window.families[family] / units), window.process / units];
  const cpuRow = (label: string, window: CpuWindow, units: number) => {
    const figures = perUnit(window, units);
    return [label, String(units), ...figures.map((seconds) => seconds.toFixed(3)), figures.reduce((sum, seconds) => sum + seconds, 0).toFixed(3)];
  };
  const cpuRows = [cpuRow('POST /render at c8, per render', c8Cpu, c8.n), cpuRow('batch alone, per row', batchCpu, batch.done)];

  const interactiveP95 = percentile(during, 95);
  process.stdout.write(
    `\n${table(
      ['figure', 'value', 'baseline (same run)', 'ratio', 'goal', 'verdict'],
      [
        ['batch rows/s', rowsPerSecond.toFixed(1), `${c8.perSecond.toFixed(1)}/s POST /render at c8`, ratio(rowsPerSecond / c8.perSecond), `>= ${GOALS.batchVsC8}x`, verdict(rowsPerSecond / c8.perSecond >= GOALS.batchVsC8)],
        ['interactive p95 during batch (ms)', ms(interactiveP95), `${ms(idle.p95)} idle (n ${idle.n})`, ratio(interactiveP95 / idle.p95), `<= ${GOALS.interactiveP95VsIdle}x`, verdict(interactiveP95 / idle.p95 <= GOALS.interactiveP95VsIdle)],
        ['ZIP first byte (ms)', ms(firstByteMs), `${ms(zipMs)} whole, ${(zipBytes / 1e6).toFixed(1)} MB`, '-', '<= 1000', verdict(firstByteMs <= 1000)],
        ['process peak RSS while zipping (MB)', ((peakRss - rssBefore) / 1e6).toFixed(1), `${(rssBefore / 1e6).toFixed(0)} MB before`, '-', 'flat', '-'],
        ['cold account command after 10,000 charges (ms)', ms(after10k.settings), `${ms(after10.settings)} after 10 charges`, ratio(after10k.settings / after10.settings), `<= ${GOALS.coldCommandGrowth}x`, verdict(after10k.settings / after10.settings <= GOALS.coldCommandGrowth)],
        ['first charge of a process after 10,000 charges this period (ms)', ms(after10k.firstCharge), `${ms(after10.firstCharge)} after 10`, ratio(after10k.firstCharge / after10.firstCharge), 'reads this period only', '-'],
      ],
    )}\n\nCPU-seconds per unit of work by process family (node: this process, service and bench client alike)\n${table(
      ['run', 'n', ...FAMILIES.filter((family) => family !== 'rawChromium'), 'node', 'total'],
      cpuRows,
    )}\n\nbatch alone: ${batch.done} done, ${batch.failed} failed in ${batchSeconds.toFixed(1)} s; batch beside interactive renders: ${fair.done} done, ${fair.failed} failed; interactive renders during it: n ${during.length}, p50 ${ms(median(during))} ms (idle ${ms(idle.p50)})\n`,
  );
} finally {
  for (const stop of stops.reverse()) await stop().catch((error: unknown) => logger.warn({ err: error }, 'bench teardown step failed'));
}
