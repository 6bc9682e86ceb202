/*
 * npm run bench:render: the whole service in this process (API, projections, a render worker) on a
 * fresh embedded PostgreSQL and Temporal dev server under a temporary DATA_DIR, measured against
 * raw puppeteer capture of the same HTML in the same run. A benchmark, not a test: it prints
 * figures and the targets of issue 3 beside them, and fails only when the service does.
 *
 * Pool settings come from the environment like the service's (BROWSERS=2 npm run bench:render).
 * BENCH_ONLY=hits measures the cache-hit path alone (a few seconds instead of minutes).
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { htmlDocument } from '../application/renders/html-document.js';
import type { RenderDocument } from '../application/ports/render-engine.js';
import { renderStream } from '../domain/renders/render-events.js';
import { createLogger } from '../infrastructure/config/logger.js';
import { createBrowserPool } from '../infrastructure/rendering/browser-pool.js';
import { createChromiumRenderEngine } from '../infrastructure/rendering/chromium-render-engine.js';
import { encodeImage } from '../infrastructure/rendering/image-encoder.js';
import { createHostPolicy } from '../infrastructure/rendering/network-guard.js';
import { createLocalFileStorage } from '../infrastructure/storage/local-file-storage.js';
import { mustacheMerger } from '../infrastructure/templates/mustache-merger.js';
import { createHttpApp } from '../interfaces/rest/app.js';
import { listen } from '../interfaces/rest/http-server.js';
import { startBenchService } from './bench-service.js';

type Format = 'jpeg' | 'png';

const FORMATS: readonly Format[] = ['jpeg', 'png'];
const CONCURRENCY = [1, 4, 8] as const;
/** Renders per measured run, by concurrency: enough for a p95 without pushing the run past ~3 min. */
const SAMPLES: Record<number, number> = { 1: 12, 4: 20, 8: 32 };
const HIT_SAMPLES: Record<number, number> = { 1: 60, 8: 240 };
/** Every run stops here even when its samples are not all taken, so the whole bench stays bounded. */
const RUN_DEADLINE_MS = 20_000;
const REQUEST_TIMEOUT_MS = 60_000;
const TARGETS = { missP50VsRaw: 2, throughputVsRawAtC8: 0.5, hitP50Ms: 10 };
const HITS_ONLY = process.env.BENCH_ONLY === 'hits';

const WIDTH = 1200;
const HEIGHT = 630;

const CARD_HTML = `<div class="card">
  <div class="badge">{{category}}</div>
  <h1>{{title}}</h1>
  <p>{{summary}}</p>
  <div class="footer"><span class="author">{{author}}</span><span class="site">render.example</span></div>
</div>`;

const CARD_CSS = `
body { background: linear-gradient(135deg, #312e81 0%, #7c3aed 55%, #db2777 100%); font-family: "Open Sans", "DejaVu Sans", sans-serif; color: #fff; }
.card { box-sizing: border-box; width: 1200px; height: 630px; padding: 72px 88px; display: flex; flex-direction: column; }
.badge { align-self: flex-start; padding: 8px 20px; border-radius: 999px; background: rgba(255,255,255,.18); font: 600 22px "Roboto", sans-serif; letter-spacing: .08em; text-transform: uppercase; }
h1 { margin: 36px 0 20px; font: 800 68px/1.08 "Lato", "Open Sans", sans-serif; text-shadow: 0 4px 24px rgba(0,0,0,.35); }
p { margin: 0; max-width: 920px; font-size: 30px; line-height: 1.4; opacity: .92; }
.footer { margin-top: auto; display: flex; justify-content: space-between; font-size: 26px; border-top: 2px solid rgba(255,255,255,.3); padding-top: 24px; }
.author { font-weight: 700; }
`;

const SAMPLE_DATA = {
  category: 'Engineering',
  title: 'Rendering at the speed of a browser',
  summary: 'Templates become images in one request: merge fields filled, charged in credits, listed in results.',
  author: 'The render team',
};

/** Request data of render i: every cache-miss render gets a title of its own. */
const dataFor = (i: number) => ({ ...SAMPLE_DATA, title: `Render ${i}: at the speed of a browser` });

const wallNow = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface RunResult {
  readonly latencies: number[];
  readonly wallMs: number;
}

/** `count` calls of `task` on `concurrency` lanes, each lane taking the next index; bounded by RUN_DEADLINE_MS. */
const runConcurrent = async (concurrency: number, count: number, task: (index: number) => Promise<number>): Promise<RunResult> => {
  const latencies: number[] = [];
  const deadline = performance.now() + RUN_DEADLINE_MS;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count && performance.now() < deadline) latencies.push(await task(next++));
    }),
  );
  return { latencies, wallMs: performance.now() - started };
};

const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};
const median = (values: readonly number[]) => percentile(values, 50);

interface Stats {
  readonly n: number;
  readonly p50: number;
  readonly p95: number;
  readonly perSecond: number;
}

const statsOf = ({ latencies, wallMs }: RunResult): Stats => ({
  n: latencies.length,
  p50: median(latencies),
  p95: percentile(latencies, 95),
  perSecond: (latencies.length / wallMs) * 1000,
});

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : '-');
const ratio = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}x` : '-');
const verdict = (ok: boolean) => (ok ? 'ok' : 'MISS');

const table = (header: readonly string[], rows: readonly (readonly string[])[]) => {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
};

const print = (text = '') => process.stdout.write(`${text}\n`);

/** Wall-clock ms of a Temporal history timestamp, sub-millisecond like the rest of the timings. */
const historyMs = (time: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  time ? Number(String(time.seconds ?? 0)) * 1000 + (time.nanos ?? 0) / 1e6 : Number.NaN;

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-bench-'));
// The embedded PostgreSQL may run as user postgres, which must be able to enter this folder.
await chmod(dataDir, 0o755);
const logger = createLogger(process.env.LOG_LEVEL ?? 'warn');
const stops: (() => Promise<unknown>)[] = [];
const stopAll = async () => {
  for (const stop of stops.reverse()) await stop().catch((error: unknown) => logger.error({ err: error }, 'bench shutdown step failed'));
  await rm(dataDir, { recursive: true, force: true });
};
const benchStarted = performance.now();

try {
  print(`render benchmark: ${os.cpus().length} cores, node ${process.version}, data in ${dataDir}`);
  const { config, runtime, temporal, apiKey } = await startBenchService({ dataDir, logger, stops });

  /*
   * API and worker share this event store object in this process; timing its calls shows what the
   * appends and reads of one render cost without a hook in the product code.
   */
  const storeCalls: { op: 'append' | 'read'; stream: string; start: number; end: number }[] = [];
  let recordStoreCalls = false;
  const { append, readStream } = runtime.eventStore;
  runtime.eventStore.append = async (stream, events, expected) => {
    const start = wallNow();
    try {
      return await append(stream, events, expected);
    } finally {
      if (recordStoreCalls) storeCalls.push({ op: 'append', stream, start, end: wallNow() });
    }
  };
  runtime.eventStore.readStream = async (stream) => {
    const start = wallNow();
    try {
      return await readStream(stream);
    } finally {
      if (recordStoreCalls) storeCalls.push({ op: 'read', stream, start, end: wallNow() });
    }
  };

  // The render use case itself, apart from HTTP, auth and logging around it.
  let serviceTimes: number[] | null = null;
  const { render: renderUseCase } = runtime.services.renders;
  runtime.services.renders.render = async (context, input) => {
    const start = performance.now();
    try {
      return await renderUseCase(context, input);
    } finally {
      serviceTimes?.push(performance.now() - start);
    }
  };

  await runtime.services.accounts.ensureBootstrapKey(apiKey);
  const server = await listen(createHttpApp({ services: runtime.services, logger, bodyLimit: config.BODY_LIMIT }), 0, '127.0.0.1');
  stops.push(() => server.close(1000));
  print(`service up in ${((performance.now() - benchStarted) / 1000).toFixed(1)} s (pool: ${config.BROWSERS} browser(s) x ${config.PAGES_PER_BROWSER} pages)`);

  const call = async (method: string, pathname: string, body?: unknown) => {
    const response = await fetch(`${server.url}${pathname}`, {
      method,
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const json = (await response.json()) as Record<string, unknown>;
    if (response.status !== 200) throw new Error(`${method} ${pathname} answered ${response.status}: ${JSON.stringify(json)}`);
    return json;
  };

  const created = await call('POST', '/api/v2/my-templates', { name: 'Bench card', width: WIDTH, height: HEIGHT, editor: 'html-editor' });
  const templateId = String(created.identifier);
  await call('PUT', `/api/v2/my-templates/${templateId}/html-editor`, { html: CARD_HTML, css: CARD_CSS, sampleData: SAMPLE_DATA });
  const template = await call('GET', `/api/v2/my-templates/${templateId}`);
  const quality = Number(template.quality);
  const scaleFactor = Number(template.scaleFactor);

  /** The page the worker renders for data i, built by the same functions. */
  const documentFor = (i: number): RenderDocument =>
    htmlDocument(mustacheMerger.merge(CARD_HTML, dataFor(i)), CARD_CSS, { width: WIDTH, height: HEIGHT, scaleFactor, waitTime: 0 });

  interface Sample {
    readonly requestId: string;
    readonly sentAt: number;
    readonly receivedAt: number;
  }

  const render = async (body: Record<string, unknown>, samples?: Sample[]) => {
    const started = performance.now();
    const answer = await call('POST', '/api/v2/render', { template: templateId, ...body });
    const ended = performance.now();
    samples?.push({ requestId: String(answer.requestId), sentAt: performance.timeOrigin + started, receivedAt: performance.timeOrigin + ended });
    return { latency: ended - started, cached: answer.cached === true };
  };

  let nextData = 0;
  const miss = (format: Format, samples?: Sample[]) => async () =>
    (await render({ outputFormat: format, cache: false, data: dataFor(nextData++) }, samples)).latency;

  // Raw capture: the same HTML in a browser already warm, a fresh incognito context per capture.
  const browser: Browser = await puppeteer.launch({
    executablePath: config.CHROMIUM_PATH,
    headless: true,
    args: [
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--font-render-hinting=none',
      '--disable-background-timer-throttling',
      '--disable-backgrounding-occluded-windows',
      '--disable-renderer-backgrounding',
      ...(process.getuid?.() === 0 || config.CHROMIUM_NO_SANDBOX ? ['--no-sandbox'] : []),
    ],
  });
  stops.push(async () => {
    if (browser.connected) await browser.close();
  });
  const rawPhases: { context: number; load: number; shot: number }[] = [];
  let recordRawPhases = false;
  const rawCapture = (format: Format) => async (i: number) => {
    const document = documentFor(i);
    const t0 = performance.now();
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      const t1 = performance.now();
      await page.setViewport({ width: WIDTH, height: HEIGHT, deviceScaleFactor: scaleFactor });
      await page.setContent(document.html, { waitUntil: 'load' });
      const t2 = performance.now();
      await page.screenshot({ type: format, optimizeForSpeed: true, ...(format === 'jpeg' ? { quality } : {}) });
      const t3 = performance.now();
      if (recordRawPhases && format === 'png') rawPhases.push({ context: t1 - t0, load: t2 - t1, shot: t3 - t2 });
      return t3 - t0;
    } finally {
      await context.close();
    }
  };

  print('warming up');
  for (const format of HITS_ONLY ? [] : FORMATS) {
    await runConcurrent(1, 4, rawCapture(format));
    await runConcurrent(4, 6, rawCapture(format));
    await runConcurrent(1, 4, miss(format));
    await runConcurrent(4, 6, miss(format));
  }

  const raw = new Map<string, Stats>();
  const misses = new Map<string, Stats>();
  const missSamples = new Map<Format, Sample[]>();
  for (const format of HITS_ONLY ? [] : FORMATS) {
    for (const concurrency of CONCURRENCY) {
      recordRawPhases = concurrency === 1;
      raw.set(`${format}/${concurrency}`, statsOf(await runConcurrent(concurrency, SAMPLES[concurrency] ?? 0, rawCapture(format))));
      print(`  raw ${format} c${concurrency} done`);
    }
  }
  recordRawPhases = false;
  await browser.close();
  for (const format of HITS_ONLY ? [] : FORMATS) {
    for (const concurrency of CONCURRENCY) {
      const samples: Sample[] = [];
      // Only single-lane runs are broken down: with one render at a time every call belongs to it.
      recordStoreCalls = concurrency === 1;
      misses.set(`${format}/${concurrency}`, statsOf(await runConcurrent(concurrency, SAMPLES[concurrency] ?? 0, miss(format, samples))));
      recordStoreCalls = false;
      if (concurrency === 1) missSamples.set(format, samples);
      print(`  cache-miss ${format} c${concurrency} done`);
    }
  }

  // A hit needs the first render in the results read model, which the projection fills shortly after.
  const hitBody = { outputFormat: 'jpeg', data: { ...SAMPLE_DATA, title: 'Cached card' } };
  await render(hitBody);
  for (let attempt = 0; !(await render(hitBody)).cached; attempt++) {
    if (attempt >= 50) throw new Error('the render cache never answered an identical request');
    await sleep(100);
  }
  await runConcurrent(4, 20, async () => (await render(hitBody)).latency);
  const hits = new Map<number, Stats>();
  let uncachedHits = 0;
  const hitParts = { service: [] as number[], append: [] as number[] };
  for (const concurrency of [1, 8]) {
    const single = concurrency === 1;
    const firstCall = storeCalls.length;
    serviceTimes = single ? hitParts.service : null;
    recordStoreCalls = single;
    const run = await runConcurrent(concurrency, HIT_SAMPLES[concurrency] ?? 0, async () => {
      const { latency, cached } = await render(hitBody);
      if (!cached) uncachedHits++;
      return latency;
    });
    recordStoreCalls = false;
    serviceTimes = null;
    if (single) hitParts.append.push(...storeCalls.slice(firstCall).filter((entry) => entry.op === 'append').map((entry) => entry.end - entry.start));
    hits.set(concurrency, statsOf(run));
  }
  print('  cache hits done');

  // The produce activity's parts, on the worker's own code paths at one render at a time.
  const hostPolicy = createHostPolicy({ allowedPrivateHosts: config.ALLOWED_PRIVATE_HOSTS });
  const pool = createBrowserPool({
    executablePath: config.CHROMIUM_PATH,
    browsers: 1,
    pagesPerBrowser: config.PAGES_PER_BROWSER,
    preparePage: (page) => hostPolicy.guardPage(page),
    extraArgs: config.CHROMIUM_NO_SANDBOX ? ['--no-sandbox'] : [],
    logger,
  });
  stops.push(() => pool.close());
  await pool.warmUp();
  const engine = createChromiumRenderEngine({ pool, hostPolicy, loadTimeoutMs: config.RENDER_LOAD_TIMEOUT_MS });
  const storage = createLocalFileStorage(path.join(dataDir, 'bench-files'));
  const parts = { capture: [] as number[], jpeg: [] as number[], store: [] as number[] };
  for (let i = 0; i < (HITS_ONLY ? 0 : 14); i++) {
    let started = performance.now();
    // PNG without a crop is the capture alone: the encoder hands Chromium's PNG through untouched.
    const png = await engine.render(documentFor(10_000 + i), { format: 'png', quality, crop: null });
    const capture = performance.now() - started;
    started = performance.now();
    const jpeg = await encodeImage(png.content, { format: 'jpeg', quality });
    const encode = performance.now() - started;
    started = performance.now();
    await storage.put(`bench/${i}.jpg`, jpeg.buffer, jpeg.contentType);
    const store = performance.now() - started;
    // The first renders of a new pool pay for its start; they are warm-up.
    if (i < 4) continue;
    parts.capture.push(capture);
    parts.jpeg.push(encode);
    parts.store.push(store);
  }
  await pool.close();

  interface Breakdown {
    readonly rows: [label: string, value: number][];
    readonly reads: number;
    readonly appends: number;
  }

  /** Where one cache-miss render's time went: client timings, wrapped store calls, workflow history. */
  const breakdownOf = async (sample: Sample): Promise<Breakdown> => {
    const calls = storeCalls.filter((entry) => entry.start >= sample.sentAt && entry.end <= sample.receivedAt);
    const requestedAppend = calls.find((entry) => entry.op === 'append' && entry.stream === renderStream(sample.requestId));
    const history = (await temporal.client.workflow.getHandle(sample.requestId).fetchHistory()).events ?? [];
    const at = (has: (event: (typeof history)[number]) => unknown, nth = 0) => historyMs(history.filter(has)[nth]?.eventTime);
    const started = at((event) => event.workflowExecutionStartedEventAttributes);
    const taskStarted1 = at((event) => event.workflowTaskStartedEventAttributes, 0);
    const taskCompleted1 = at((event) => event.workflowTaskCompletedEventAttributes, 0);
    const activityStarted = at((event) => event.activityTaskStartedEventAttributes);
    const activityCompleted = at((event) => event.activityTaskCompletedEventAttributes);
    const taskStarted2 = at((event) => event.workflowTaskStartedEventAttributes, 1);
    const finished = at((event) => event.workflowExecutionCompletedEventAttributes);
    const within = (from: number, to: number, op: 'append' | 'read', prefix: string) =>
      calls.filter((entry) => entry.op === op && entry.stream.startsWith(prefix) && entry.start >= from && entry.end <= to).reduce((sum, entry) => sum + entry.end - entry.start, 0);
    const appendStart = requestedAppend?.start ?? Number.NaN;
    const appendEnd = requestedAppend?.end ?? Number.NaN;
    return {
      rows: [
        ['HTTP in -> RenderRequested append (auth, template, cache lookup, credit check)', appendStart - sample.sentAt],
        ['RenderRequested append', appendEnd - appendStart],
        ['workflow start RPC (append done -> WorkflowExecutionStarted)', started - appendEnd],
        ['first workflow task reaches the worker', taskStarted1 - started],
        ['charge local activity + workflow task', taskCompleted1 - taskStarted1],
        ['  of which CreditsCharged append', within(taskStarted1, taskCompleted1, 'append', 'account-')],
        ['  of which stream reads (render, account)', within(taskStarted1, taskCompleted1, 'read', '')],
        ['produce activity dispatch (-> ActivityTaskStarted)', activityStarted - taskCompleted1],
        ['produce activity (ActivityTaskStarted -> Completed)', activityCompleted - activityStarted],
        ['  of which stream reads (render, template)', within(activityStarted, activityCompleted, 'read', '')],
        ['completion workflow task reaches the worker', taskStarted2 - activityCompleted],
        ['record completion local activity + workflow end', finished - taskStarted2],
        ['  of which RenderCompleted append', within(taskStarted2, finished, 'append', 'render-')],
        ['result wait (WorkflowExecutionCompleted -> HTTP answer received)', sample.receivedAt - finished],
        ['total (client)', sample.receivedAt - sample.sentAt],
      ],
      reads: calls.filter((entry) => entry.op === 'read').length,
      appends: calls.filter((entry) => entry.op === 'append').length,
    };
  };

  print();
  print(`== raw puppeteer capture vs end-to-end sync REST render (cache: false), ${WIDTH}x${HEIGHT}, quality ${quality}`);
  const rows: string[][] = [];
  for (const format of FORMATS) {
    for (const concurrency of CONCURRENCY) {
      const r = raw.get(`${format}/${concurrency}`);
      const m = misses.get(`${format}/${concurrency}`);
      if (!r || !m) continue;
      rows.push([format, `c${concurrency}`, String(r.n), ms(r.p50), ms(r.p95), r.perSecond.toFixed(2), String(m.n), ms(m.p50), ms(m.p95), m.perSecond.toFixed(2), ratio(m.p50 / r.p50), ratio(m.perSecond / r.perSecond)]);
    }
  }
  print(table(['format', 'conc', 'raw n', 'raw p50', 'raw p95', 'raw r/s', 'e2e n', 'e2e p50', 'e2e p95', 'e2e r/s', 'p50/raw', 'r/s vs raw'], rows));

  print();
  print('== cache hits (identical request repeated; jpeg)');
  print(table(['conc', 'n', 'p50 ms', 'p95 ms', 'r/s'], [1, 8].flatMap((concurrency) => {
    const h = hits.get(concurrency);
    return h ? [[`c${concurrency}`, String(h.n), ms(h.p50), ms(h.p95), h.perSecond.toFixed(1)]] : [];
  })));
  const hitC1 = hits.get(1);
  print(`  at c1: render use case p50 ${ms(median(hitParts.service))} ms (of which the RenderRequested+RenderCompleted append p50 ${ms(median(hitParts.append))} ms); HTTP, auth and logging around it ${ms((hitC1?.p50 ?? Number.NaN) - median(hitParts.service))} ms`);
  if (uncachedHits > 0) print(`  warning: ${uncachedHits} repeated requests were not answered from the cache`);

  print();
  print(`== targets (2 cores): cache-miss p50 <= ${TARGETS.missP50VsRaw}x raw; throughput at c8 >= ${TARGETS.throughputVsRawAtC8}x raw; cache-hit p50 < ${TARGETS.hitP50Ms} ms`);
  const targetRows: string[][] = [];
  for (const format of HITS_ONLY ? [] : FORMATS) {
    for (const concurrency of CONCURRENCY) {
      const value = (misses.get(`${format}/${concurrency}`)?.p50 ?? Number.NaN) / (raw.get(`${format}/${concurrency}`)?.p50 ?? Number.NaN);
      targetRows.push([`${format} cache-miss p50 / raw p50 at c${concurrency}`, ratio(value), `<= ${TARGETS.missP50VsRaw}x`, verdict(value <= TARGETS.missP50VsRaw)]);
    }
    const throughput = (misses.get(`${format}/8`)?.perSecond ?? Number.NaN) / (raw.get(`${format}/8`)?.perSecond ?? Number.NaN);
    targetRows.push([`${format} throughput at c8 / raw at c8`, ratio(throughput), `>= ${TARGETS.throughputVsRawAtC8}x`, verdict(throughput >= TARGETS.throughputVsRawAtC8)]);
  }
  for (const concurrency of [1, 8]) {
    const p50 = hits.get(concurrency)?.p50 ?? Number.NaN;
    targetRows.push([`cache-hit p50 at c${concurrency}`, `${ms(p50)} ms`, `< ${TARGETS.hitP50Ms} ms`, verdict(p50 < TARGETS.hitP50Ms)]);
  }
  print(table(['target', 'measured', 'goal', ''], targetRows));

  for (const format of HITS_ONLY ? [] : FORMATS) {
    const samples = missSamples.get(format) ?? [];
    const breakdowns = await Promise.all(samples.map(breakdownOf));
    const labels = breakdowns[0]?.rows.map(([label]) => label) ?? [];
    print();
    print(`== where a cache miss spends its time (${format}, c1, median of ${breakdowns.length} renders; ms)`);
    print(table(['step', 'p50', 'p95'], labels.map((label, index) => {
      const values = breakdowns.map((breakdown) => breakdown.rows[index]?.[1] ?? Number.NaN);
      return [label, ms(median(values)), ms(percentile(values, 95))];
    })));
    print(`  event store calls per render: ${median(breakdowns.map((b) => b.reads))} stream reads, ${median(breakdowns.map((b) => b.appends))} appends`);
  }

  if (!HITS_ONLY) {
    print();
    print(`== inside the produce activity (worker code paths measured apart, c1, n=${parts.capture.length}; ms)`);
    const rawPng = {
      context: median(rawPhases.map((phase) => phase.context)),
      load: median(rawPhases.map((phase) => phase.load)),
      shot: median(rawPhases.map((phase) => phase.shot)),
    };
    print(table(['part', 'p50', 'p95'], [
      ['browser: engine capture (spare page, guard, viewport, setContent, fonts, PNG screenshot)', ms(median(parts.capture)), ms(percentile(parts.capture, 95))],
      ['encode: sharp PNG -> JPEG', ms(median(parts.jpeg)), ms(percentile(parts.jpeg, 95))],
      ['store: local disk write + rename', ms(median(parts.store)), ms(percentile(parts.store, 95))],
      ['raw png for comparison: new context + page', ms(rawPng.context), ''],
      ['raw png for comparison: viewport + setContent', ms(rawPng.load), ''],
      ['raw png for comparison: screenshot', ms(rawPng.shot), ''],
    ]));
  }

  print();
  print(`bench finished in ${((performance.now() - benchStarted) / 1000).toFixed(1)} s`);
} finally {
  await stopAll();
}
