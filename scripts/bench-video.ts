/*
 * npm run bench:video: the whole service in this process (API, projections, a render worker) on a
 * fresh embedded PostgreSQL and Temporal dev server under a temporary DATA_DIR. Renders 5 s canvas-html
 * templates at 30 fps, 1280x720 and 1920x1080, as mp4 and webm through REST (202, then polling the
 * result until done), and measures capture and encoding apart on the same pages: the baseline, raw
 * Chromium drawing frames of a warm page and ffmpeg encoding frames from memory. Then a 30 s 1080p
 * video on worker processes: one rendering it whole, one and two rendering it in 5 s segments.
 * A benchmark, not a test: it prints figures and the issue-14 targets beside them, and fails only
 * when the service does. BENCH_VIDEO_CHUNKED=off skips the worker processes.
 *
 * CPU seconds are counted per process (Chromium, ffmpeg, this process) from /proc, so figures taken
 * on a busy machine still say what a render costs: wall time / real time is what the target is about,
 * CPU seconds / cores is the wall time the same work needs on an idle machine.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { VideoFormat } from '../domain/templates/template-settings.js';
import { resolveValues } from '../domain/templates/components/resolve-values.js';
import type { Component, ComponentDocument } from '../domain/templates/components/component-document.js';
import { frameTimeMs, videoFrameCount } from '../domain/renders/video-timing.js';
import { createHtmlCanvasRenderer } from '../infrastructure/canvas/html-canvas-renderer.js';
import { createLogger } from '../infrastructure/config/logger.js';
import { loadConfig, type Config } from '../infrastructure/config/config.js';
import { bundleWorkflows } from '../infrastructure/temporal/temporal-worker.js';
import { createRuntime } from '../interfaces/composition-root.js';
import { createBrowserPool, type BrowserPool } from '../infrastructure/rendering/browser-pool.js';
import { prepareRenderPage } from '../infrastructure/rendering/page-confinement.js';
import { NO_ORG_ASSETS } from '../infrastructure/rendering/org-assets.js';
import { prepareTemplateHost } from '../infrastructure/rendering/template-document.js';
import { createHostPolicy } from '../infrastructure/rendering/network-guard.js';
import { startEncoder } from '../infrastructure/video/ffmpeg-encoder.js';
import { openFramePage } from '../infrastructure/video/virtual-clock-page.js';
import { createHttpApp } from '../interfaces/rest/app.js';
import { listen } from '../interfaces/rest/http-server.js';
import { startBenchService } from './bench-service.js';
import { TYPESCRIPT_FLAGS } from '../infrastructure/system/node-flags.js';
import { print, table } from './bench/measure.js';
import { historyMs } from './bench/workflow-history.js';

const DURATION_MS = 5_000;
const FPS = 30;
const FRAMES = videoFrameCount(DURATION_MS, FPS);
const SIZES = [
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
] as const;
const FORMATS: readonly VideoFormat[] = ['mp4', 'webm'];
/** Issue 14 on 2 cores: a 5 s 1080p30 mp4 in at most real time, a 720p one in at most 0.6 of it. */
const TARGETS = { 1080: 1, 720: 0.6 } as const;
/** Issue 24: a video end to end within this much of raw two-page capture of its frames, same machine, same run. */
const VS_RAW_CAPTURE_TARGET = 1.1;
/** Issue 43: a 1080p video end to end within this much of naive capture (screenshots, two pages) of its frames. */
const VS_NAIVE_CAPTURE_TARGET = 0.6;
const CHUNKED_DURATION_MS = 30_000;
const RENDER_TIMEOUT_MS = 300_000;
/** How often the bench polls a pending result, as a client would: the wall times are this exact. */
const POLL_MS = 100;

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => (ms / 1000).toFixed(2);

/**
 * Motion graphics of the kind the canvas editor makes: a full-page background, shapes sliding,
 * turning and scaling, text fading in, on a timeline that keeps something moving all the time.
 */
const motionGraphics = ({ width, height }: { width: number; height: number }, durationMs = DURATION_MS): ComponentDocument => {
  const unit = width / 1280;
  /** The 5 s timeline stretched over a longer video, so it keeps moving to the end. */
  const time = (ms: number) => (ms * durationMs) / DURATION_MS;
  return {
    background: '#101828',
    components: [
      { id: 'band', type: 'RECTANGLE', x: 0, y: height * 0.62, width, height: height * 0.38, fill: '#1d2939' },
      {
        id: 'sun',
        type: 'CIRCLE',
        x: width * 0.7,
        y: height * 0.1,
        width: 260 * unit,
        height: 260 * unit,
        fill: '#f79009',
        animation: { keyframes: [{ offset: time(0), duration: time(DURATION_MS), to: { y: height * 0.45, scale: 1.4 }, easing: 'ease-in-out' }] },
      },
      {
        id: 'card',
        type: 'RECTANGLE',
        x: -400 * unit,
        y: height * 0.3,
        width: 360 * unit,
        height: 220 * unit,
        fill: '#7f56d9',
        radius: 24 * unit,
        animation: {
          keyframes: [
            { offset: time(0), duration: time(2_000), to: { x: width * 0.1 }, easing: 'ease-out' },
            { offset: time(2_000), duration: time(3_000), to: { x: width * 0.45, rotation: 360 }, easing: 'ease-in-out' },
          ],
        },
      },
      ...Array.from({ length: 6 }, (_, index): Component => ({
        id: `dot${index}`,
        type: 'CIRCLE',
        x: (80 + index * 190) * unit,
        y: height * 0.8,
        width: 60 * unit,
        height: 60 * unit,
        fill: index % 2 ? '#12b76a' : '#2e90fa',
        animation: {
          keyframes: [
            { offset: time(index * 300), duration: time(1_000), to: { y: height * 0.66 }, easing: 'ease-out' },
            { offset: time(index * 300 + 1_000), duration: time(1_000), to: { y: height * 0.8 }, easing: 'ease-in' },
            { offset: time(index * 300 + 2_000), duration: time(2_500), to: { x: (80 + ((index + 3) % 6) * 190) * unit, scale: 0.5 } },
          ],
        },
      })),
      {
        id: 'title',
        type: 'TEXT',
        x: 80 * unit,
        y: 60 * unit,
        width: 900 * unit,
        height: 120 * unit,
        text: 'Rendering at the speed of a browser',
        fontSize: 56 * unit,
        fontWeight: 700,
        color: '#ffffff',
        animation: { enter: { offset: time(300), duration: time(1_200), from: { opacity: 0, y: 0 }, easing: 'ease-out' } },
      },
      {
        id: 'subtitle',
        type: 'TEXT',
        x: 80 * unit,
        y: 180 * unit,
        width: 900 * unit,
        height: 60 * unit,
        text: 'Every frame on a virtual clock',
        fontSize: 32 * unit,
        color: '#d0d5dd',
        animation: { enter: { offset: time(1_200), duration: time(1_000), from: { opacity: 0, x: 0 } } },
      },
    ],
  };
};

/** CPU seconds of this process and each program it started (directly or not), counted while running. */
const cpuMeter = () => {
  const ticksPerSecond = 100;
  const seen = new Map<number, { name: string; first: number; last: number }>();
  const sample = () => {
    const children = new Map<number, { pid: number; name: string; cpu: number }[]>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const ppid = Number(fields[1]);
        children.set(ppid, [...(children.get(ppid) ?? []), { pid: Number(entry), name, cpu: (Number(fields[11]) + Number(fields[12])) / ticksPerSecond }]);
      } catch {
        // Ended while the folder was read.
      }
    }
    const pending = [process.pid];
    for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
      for (const child of children.get(pid) ?? []) {
        const known = seen.get(child.pid);
        if (known) known.last = child.cpu;
        else seen.set(child.pid, { name: child.name, first: child.cpu, last: child.cpu });
        pending.push(child.pid);
      }
    }
  };
  sample();
  const ownStart = process.cpuUsage();
  // Often enough that ffmpeg, which lives as long as one video, is caught shortly before it exits.
  const timer = setInterval(sample, 50);
  return () => {
    clearInterval(timer);
    sample();
    const byProgram = { chromium: 0, ffmpeg: 0, services: 0, node: 0 };
    for (const { name, first, last } of seen.values()) {
      const key = name.startsWith('chrom') ? 'chromium' : name === 'ffmpeg' ? 'ffmpeg' : 'services';
      byProgram[key] += last - first;
    }
    const own = process.cpuUsage(ownStart);
    byProgram.node = (own.user + own.system) / 1e6;
    return byProgram;
  };
};
type CpuSeconds = ReturnType<ReturnType<typeof cpuMeter>>;
const cpuTotal = (cpu: CpuSeconds) => cpu.chromium + cpu.ffmpeg + cpu.node;

const probe = async (file: string) => {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_entries', 'stream=codec_name,nb_read_frames:format=duration', '-of', 'json', file]);
  const parsed = JSON.parse(stdout) as { streams: { codec_name: string; nb_read_frames: string }[]; format: { duration: string } };
  return { codec: parsed.streams[0]?.codec_name ?? '?', frames: Number(parsed.streams[0]?.nb_read_frames), duration: Number(parsed.format.duration) };
};

/** Wall-clock ms of a Temporal history timestamp. */
/** How long the produceVideo activity ran, from the workflow's history. */
const produceMs = async (client: Client, requestId: string) => {
  const events = (await client.workflow.getHandle(requestId).fetchHistory()).events ?? [];
  const started = events.find((event) => event.activityTaskStartedEventAttributes);
  const completed = events.find((event) => event.activityTaskCompletedEventAttributes);
  return historyMs(completed?.eventTime) - historyMs(started?.eventTime);
};

/**
 * A render worker process (`npm run worker` without the setup step), ready once it polls; pinned to
 * one core with taskset when `core` is given (its Chromium and ffmpeg inherit the pin), as a host of
 * one core would run it.
 */
const startWorkerProcess = async (env: Record<string, string>, core?: number): Promise<ChildProcess> => {
  const root = fileURLToPath(new URL('../', import.meta.url));
  const command = [process.execPath, ...TYPESCRIPT_FLAGS, 'interfaces/cli/worker.ts'];
  const [program, ...args] = core === undefined ? command : ['taskset', '-c', String(core), ...command];
  const child = spawn(program ?? process.execPath, args, { cwd: root, env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 120_000;
  while (!output.includes('render worker polling')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`a worker process did not start:\n${output}`);
    }
    await sleep(100);
  }
  return child;
};

const stopWorkerProcess = async (child: ChildProcess) => {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(20_000)]);
  child.kill('SIGKILL');
};

/**
 * A 30 s 1080p mp4 through a second API (in this process, a Temporal client only) on a task queue
 * that only worker processes poll: one worker rendering it whole, then one and two workers
 * rendering it in 5 s segments. Returns the table rows.
 */
async function chunkedRuns({ config, dataDir, logger, stops }: { config: Config; dataDir: string; logger: Logger; stops: (() => Promise<unknown>)[] }): Promise<string[][]> {
  const taskQueue = `bench-chunked-${randomBytes(4).toString('hex')}`;
  const apiConfig = loadConfig({ ...process.env, ...configEnvOf(config), TEMPORAL_TASK_QUEUE: taskQueue, PORT: '0' });
  const api = await createRuntime(apiConfig, logger, { runProjections: true, rendering: 'client' });
  stops.push(() => api.close());
  const server = await listen(createHttpApp({ services: api.services, logger, bodyLimit: apiConfig.BODY_LIMIT }), 0, '127.0.0.1');
  stops.push(() => server.close(1000));
  const bundle = path.join(dataDir, 'workflow-bundle.json');
  await writeFile(bundle, JSON.stringify(await bundleWorkflows({ traced: false })));
  const temporal = await Connection.connect({ address: config.TEMPORAL_ADDRESS ?? '' });
  stops.push(() => temporal.close());
  const client = new Client({ connection: temporal });
  const call = async (method: string, pathname: string, body?: unknown) => {
    const response = await fetch(`${server.url}${pathname}`, { method, headers: { 'x-api-key': config.BOOTSTRAP_API_KEY ?? '', 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = (await response.json()) as Record<string, any>;
    if (response.status >= 300) throw new Error(`${method} ${pathname} answered ${response.status}: ${JSON.stringify(json)}`);
    return json;
  };
  const size = SIZES[1];
  const created = await call('POST', '/api/v2/my-templates', { name: 'Bench 30 s', ...size, editor: 'canvas-html', outputFormat: 'mp4', recordDuration: CHUNKED_DURATION_MS, fps: FPS });
  await call('PUT', `/api/v2/my-templates/${created.identifier}/components`, motionGraphics(size, CHUNKED_DURATION_MS));

  /*
   * Two workers on one two-core machine share the same cores, so splitting cannot beat one worker
   * that already uses both; the pinned runs stand for hosts of one core each, where it can.
   * Speed-up is against the whole render by one worker on the same cores.
   */
  const runs = [
    { label: '1, whole video', workers: 1, segmentSeconds: '0', pinned: false, baseline: true },
    { label: '1, 5 s segments', workers: 1, segmentSeconds: '5', pinned: false, baseline: false },
    { label: '2, 5 s segments', workers: 2, segmentSeconds: '5', pinned: false, baseline: false },
    { label: '1 on 1 core, whole video', workers: 1, segmentSeconds: '0', pinned: true, baseline: true },
    { label: '2 on 1 core each, 5 s segments', workers: 2, segmentSeconds: '5', pinned: true, baseline: false },
  ];
  const rows: string[][] = [];
  let wholeMs = Number.NaN;
  for (const run of runs) {
    const workers = await Promise.all(
      Array.from({ length: run.workers }, (_, index) =>
        startWorkerProcess({
          DATABASE_URL: config.DATABASE_URL ?? '',
          DATA_DIR: dataDir,
          EVENTSTORE_URL: '',
          TEMPORAL_ADDRESS: config.TEMPORAL_ADDRESS ?? '',
          TEMPORAL_TASK_QUEUE: taskQueue,
          WORKFLOW_BUNDLE_PATH: bundle,
          VIDEO_SEGMENT_SECONDS: run.segmentSeconds,
        }, run.pinned ? index % os.cpus().length : undefined),
      ),
    );
    try {
      const stopMeter = cpuMeter();
      const started = performance.now();
      const accepted = await call('POST', '/api/v2/render', { template: created.identifier, outputFormat: 'mp4', cache: false });
      const requestId = String(accepted.requestId);
      let detail: Record<string, any>;
      for (;;) {
        detail = await call('GET', `/api/v2/results/${requestId}`);
        if (detail.status !== 'pending') break;
        if (performance.now() - started > RENDER_TIMEOUT_MS) throw new Error(`${requestId} still pending after ${RENDER_TIMEOUT_MS} ms`);
        await sleep(POLL_MS);
      }
      const wallMs = performance.now() - started;
      const cpu = stopMeter();
      if (detail.status !== 'done') throw new Error(`render ${requestId} ${detail.status}: ${detail.failureReason}`);
      if (run.baseline) wholeMs = wallMs;
      const events = (await client.workflow.getHandle(requestId).fetchHistory()).events ?? [];
      const segmentIds = new Set(events.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'produceVideoSegment').map((event) => String(event.eventId)));
      const byWorker = new Map<string, number>();
      for (const event of events) {
        const attributes = event.activityTaskStartedEventAttributes;
        if (attributes && segmentIds.has(String(attributes.scheduledEventId))) byWorker.set(attributes.identity ?? '?', (byWorker.get(attributes.identity ?? '?') ?? 0) + 1);
      }
      const href = new URL(String(detail.href));
      const file = path.join(dataDir, `${requestId}.mp4`);
      await writeFile(file, Buffer.from(await (await fetch(`${server.url}${href.pathname}${href.search}`)).arrayBuffer()));
      const probed = await probe(file);
      rows.push([
        run.label,
        seconds(wallMs),
        `${(wallMs / CHUNKED_DURATION_MS).toFixed(2)}x`,
        `${(wholeMs / wallMs).toFixed(2)}x`,
        cpuTotal(cpu).toFixed(1),
        byWorker.size === 0 ? '-' : [...byWorker.values()].join(' + '),
        `${probed.codec} ${probed.frames}f ${probed.duration.toFixed(2)}s`,
      ]);
      print(`  ${CHUNKED_DURATION_MS / 1000} s video, ${run.label}: done`);
    } finally {
      await Promise.all(workers.map(stopWorkerProcess));
    }
  }
  return rows;
}

/** The settings a second runtime needs to share this one's database, Temporal and key. */
const configEnvOf = (config: Config): Record<string, string> => ({
  DATA_DIR: config.DATA_DIR,
  DATABASE_URL: config.DATABASE_URL ?? '',
  EVENTSTORE_URL: '',
  TEMPORAL_ADDRESS: config.TEMPORAL_ADDRESS ?? '',
  TEMPORAL_NAMESPACE: config.TEMPORAL_NAMESPACE,
  HOST: '127.0.0.1',
  PUBLIC_BASE_URL: '',
  BOOTSTRAP_API_KEY: config.BOOTSTRAP_API_KEY ?? '',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  RATE_LIMIT_DEFAULT: '0',
});

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'video-bench-'));
// The embedded PostgreSQL may run as user postgres, which must be able to enter this folder.
await chmod(dataDir, 0o755);
const logger = createLogger(process.env.LOG_LEVEL ?? 'warn');
const stops: (() => Promise<unknown>)[] = [];
const benchStarted = performance.now();

try {
  print(`video benchmark: ${os.cpus().length} cores, load average ${os.loadavg().map((load) => load.toFixed(1)).join(' ')}, node ${process.version}`);
  const { config, runtime, temporal, apiKey } = await startBenchService({ dataDir, logger, stops });
  await runtime.services.accounts.ensureBootstrapKey(apiKey);
  const server = await listen(createHttpApp({ services: runtime.services, logger, bodyLimit: config.BODY_LIMIT }), 0, '127.0.0.1');
  stops.push(() => server.close(1000));
  print(`service up in ${seconds(performance.now() - benchStarted)} s`);

  const call = async (method: string, pathname: string, body?: unknown) => {
    const response = await fetch(`${server.url}${pathname}`, {
      method,
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as Record<string, any>;
    if (response.status >= 300) throw new Error(`${method} ${pathname} answered ${response.status}: ${JSON.stringify(json)}`);
    return { status: response.status, body: json };
  };

  const templates = new Map<number, string>();
  for (const size of SIZES) {
    const created = await call('POST', '/api/v2/my-templates', { name: `Bench ${size.height}p`, ...size, editor: 'canvas-html', outputFormat: 'mp4', recordDuration: DURATION_MS, fps: FPS });
    await call('PUT', `/api/v2/my-templates/${created.body.identifier}/components`, motionGraphics(size));
    templates.set(size.height, String(created.body.identifier));
  }

  /** One video through REST as a client renders it: 202, then polling the result until it is done. */
  const renderVideo = async (size: (typeof SIZES)[number], format: VideoFormat) => {
    const stopMeter = cpuMeter();
    const started = performance.now();
    const accepted = await call('POST', '/api/v2/render', { template: templates.get(size.height), outputFormat: format, cache: false });
    if (accepted.status !== 202) throw new Error(`expected 202, got ${accepted.status}`);
    const requestId = String(accepted.body.requestId);
    let detail: Record<string, any>;
    for (;;) {
      detail = (await call('GET', `/api/v2/results/${requestId}`)).body;
      if (detail.status !== 'pending') break;
      if (performance.now() - started > RENDER_TIMEOUT_MS) throw new Error(`${requestId} still pending after ${RENDER_TIMEOUT_MS} ms`);
      await sleep(POLL_MS);
    }
    const wallMs = performance.now() - started;
    const cpu = stopMeter();
    if (detail.status !== 'done') throw new Error(`render ${requestId} ${detail.status}: ${detail.failureReason}`);
    const href = new URL(String(detail.href));
    const file = path.join(dataDir, `${requestId}.${format}`);
    await writeFile(file, Buffer.from(await (await fetch(`${server.url}${href.pathname}${href.search}`)).arrayBuffer()));
    return { wallMs, produceMs: await produceMs(temporal.client, requestId), cpu, probed: await probe(file) };
  };

  print('warming up (one small video of each format)');
  for (const format of FORMATS) await renderVideo(SIZES[0], format);

  const rows: string[][] = [];
  const results = new Map<string, Awaited<ReturnType<typeof renderVideo>>>();
  for (const size of SIZES) {
    for (const format of FORMATS) {
      const result = await renderVideo(size, format);
      results.set(`${size.height}/${format}`, result);
      const { wallMs, cpu, probed } = result;
      rows.push([
        `${size.width}x${size.height} ${format}`,
        seconds(wallMs),
        `${(wallMs / DURATION_MS).toFixed(2)}x`,
        seconds(result.produceMs),
        `${((FRAMES / wallMs) * 1000).toFixed(1)}`,
        cpu.chromium.toFixed(1),
        cpu.ffmpeg.toFixed(1),
        cpu.node.toFixed(1),
        (cpuTotal(cpu) / os.cpus().length).toFixed(2),
        `${probed.codec} ${probed.frames}f ${probed.duration.toFixed(2)}s`,
      ]);
      print(`  ${size.height}p ${format} done`);
    }
  }

  /*
   * Capture and encoding apart, on the same page: frames captured into memory by 1 and by 2 pages
   * (each taking the next frame when free, as the renderer does), then those frames fed to ffmpeg.
   */
  const hostPolicy = createHostPolicy({ allowedPrivateHosts: [] });
  const poolSetup = {
    logger,
    extraArgs: config.CHROMIUM_NO_SANDBOX ? ['--no-sandbox'] : [],
    preparePage: prepareRenderPage(hostPolicy, NO_ORG_ASSETS),
    resetPage: prepareTemplateHost,
  };
  // As the worker has them: frames drawn on demand by chrome-headless-shell, one page per browser;
  // and screenshots of the render pool's Chromium, which videos fall back to without the shell.
  const pools: { name: string; pool: BrowserPool }[] = [
    { name: 'on demand', pool: createBrowserPool({ ...poolSetup, executablePath: config.VIDEO_CHROMIUM_PATH, framesOnDemand: true, browsers: 2, pagesPerBrowser: 1, tenantShare: 1 }) },
    { name: 'screenshot', pool: createBrowserPool({ ...poolSetup, executablePath: config.CHROMIUM_PATH, browsers: 1, pagesPerBrowser: 2, tenantShare: 1 }) },
  ];
  for (const { pool } of pools) {
    stops.push(() => pool.close());
    await pool.warmUp();
  }
  const canvas = createHtmlCanvasRenderer();
  const captureRows: string[][] = [];
  const perFrame = new Map<string, { captureMs: number; encodeMs: number }>();
  /** Wall ms of the raw baseline by height: two pages drawing every frame on demand, as the worker's two video browsers do. */
  const rawCaptureMs = new Map<number, number>();
  /** Wall ms of naive capture by height: two pages taking a screenshot of every frame. */
  const naiveCaptureMs = new Map<number, number>();
  for (const size of SIZES) {
    const document = motionGraphics(size);
    const html = await canvas.toHtml(document, resolveValues(document, {}), size);
    const videoDocument = { html, ...size, scaleFactor: 1, waitTime: 0, fps: FPS, durationMs: DURATION_MS };
    let frames: Buffer[] = [];
    let captureCpuPerFrame = Number.NaN;
    for (const { name, pool } of pools) {
      for (const pages of [1, 2]) {
        frames = new Array<Buffer>(FRAMES);
        let next = 0;
        const stopMeter = cpuMeter();
        const started = performance.now();
        await Promise.all(
          Array.from({ length: pages }, () =>
            pool.withPage(
              async (page, session) => {
                const framePage = await openFramePage(page, session, videoDocument, {
                  hostPolicy,
                  loadTimeoutMs: 15_000,
                  frameQuality: 90,
                  frameTimeoutMs: 30_000,
                  framesOnDemand: pool.framesOnDemand,
                });
                for (let index = next++; index < FRAMES; index = next++) frames[index] = await framePage.capture(frameTimeMs(index, FPS));
              },
              { tenant: 'bench', deadlineMs: 10 * 60_000 },
            ),
          ),
        );
        const wallMs = performance.now() - started;
        const cpu = stopMeter();
        if (name === 'on demand' && pages === 1) captureCpuPerFrame = ((cpu.chromium + cpu.node) * 1000) / FRAMES;
        if (name === 'on demand' && pages === 2) rawCaptureMs.set(size.height, wallMs);
        if (name === 'screenshot' && pages === 2) naiveCaptureMs.set(size.height, wallMs);
        captureRows.push([
          `${size.height}p capture ${name}, ${pages} page${pages > 1 ? 's' : ''} (incl. page load)`,
          seconds(wallMs),
          ((FRAMES / wallMs) * 1000).toFixed(1),
          cpu.chromium.toFixed(1),
          '-',
          cpu.node.toFixed(1),
          ((cpu.chromium * 1000) / FRAMES).toFixed(1),
        ]);
      }
    }
    for (const format of FORMATS) {
      const stopMeter = cpuMeter();
      const started = performance.now();
      const encoder = startEncoder({ format, fps: FPS, frameCodec: 'mjpeg', quality: 80, crop: null, outputPath: path.join(dataDir, `encode-only.${format}`) });
      for (const frame of frames) await encoder.write(frame);
      await encoder.finish();
      const wallMs = performance.now() - started;
      const cpu = stopMeter();
      if (format === 'mp4') perFrame.set(String(size.height), { captureMs: captureCpuPerFrame, encodeMs: (cpu.ffmpeg * 1000) / FRAMES });
      captureRows.push([
        `${size.height}p encode ${format} (frames from memory)`,
        seconds(wallMs),
        ((FRAMES / wallMs) * 1000).toFixed(1),
        '-',
        cpu.ffmpeg.toFixed(1),
        cpu.node.toFixed(1),
        ((cpu.ffmpeg * 1000) / FRAMES).toFixed(1),
      ]);
    }
  }

  const chunkedRows = process.env.BENCH_VIDEO_CHUNKED === 'off' ? [] : await chunkedRuns({ config, dataDir, logger, stops });

  print();
  print(`== end-to-end through REST: ${DURATION_MS / 1000} s at ${FPS} fps (${FRAMES} frames), POST -> result done (polled every ${POLL_MS} ms)`);
  print(
    table(
      ['video', 'wall s', 'x real time', 'produce s', 'frames/s', 'cpu chromium', 'cpu ffmpeg', 'cpu node', 'cpu s / cores', 'ffprobe'],
      rows,
    ),
  );
  print('  produce = the produceVideo activity (capture + encode + store); cpu s / cores = the wall time of the same work on an idle machine');

  print();
  print('== capture and encoding apart (same pages and frames; CPU seconds, and CPU ms per frame of the program doing the step)');
  print(table(['step', 'wall s', 'frames/s', 'cpu chromium', 'cpu ffmpeg', 'cpu node', 'cpu ms/frame'], captureRows));
  for (const [height, { captureMs, encodeMs }] of perFrame) {
    print(`  ${height}p: capture ${captureMs.toFixed(1)} ms CPU per frame (Chromium + this process, on demand, 1 page), encode ${encodeMs.toFixed(1)} ms CPU per frame (ffmpeg, mp4)`);
  }

  if (chunkedRows.length > 0) {
    print();
    print(`== a ${CHUNKED_DURATION_MS / 1000} s 1920x1080 mp4 on render worker processes (npm run worker), through REST; cpu of every process`);
    print(table(['workers', 'wall s', 'x real time', 'speed-up', 'cpu s', 'segments by worker', 'ffprobe'], chunkedRows));
    print('  speed-up = the whole render by one worker on the same cores / this run. Unpinned, both workers share the two');
    print('  cores one worker already fills; pinned (taskset), each worker has one core of its own, as on one-core hosts');
  }

  print();
  print('== end to end vs raw: each video\'s wall time (POST -> done) over raw two-page capture of the same frames on demand (same run, this machine)');
  print(
    table(
      ['video', 'end to end s', 'raw capture s', 'ratio'],
      [...results].map(([key, result]) => {
        const raw = rawCaptureMs.get(Number(key.split('/')[0])) ?? Number.NaN;
        return [key.replace('/', 'p '), seconds(result.wallMs), seconds(raw), `${(result.wallMs / raw).toFixed(2)}x`];
      }),
    ),
  );
  print('  the raw side draws frames only: no page load through the service, encoding, storing, workflow or polling');

  print();
  const video1080 = results.get('1080/mp4');
  const vsRaw = (video1080?.wallMs ?? Number.NaN) / (rawCaptureMs.get(1080) ?? Number.NaN);
  const targetRows = ([1080, 720] as const).map((height) => {
    const result = results.get(`${height}/mp4`);
    const ratio = (result?.wallMs ?? Number.NaN) / DURATION_MS;
    const idle = result ? cpuTotal(result.cpu) / os.cpus().length / (DURATION_MS / 1000) : Number.NaN;
    const goal = TARGETS[height];
    return [
      [`${height}p30 mp4 wall / real time (this machine, now)`, `${ratio.toFixed(2)}x`, `<= ${goal}x`, ratio <= goal ? 'ok' : 'MISS'],
      [`${height}p30 mp4 CPU seconds / cores / real time (idle machine bound)`, `${idle.toFixed(2)}x`, `<= ${goal}x`, idle <= goal ? 'ok' : 'MISS'],
    ];
  });
  print(`== targets (issue 14, 2 cores): a 5 s 1080p30 mp4 in at most ${TARGETS[1080]}x real time, 720p in at most ${TARGETS[720]}x`);
  targetRows.push([['1080p30 mp4 end to end / raw two-page capture (issue 24)', `${vsRaw.toFixed(2)}x`, `<= ${VS_RAW_CAPTURE_TARGET}x`, vsRaw <= VS_RAW_CAPTURE_TARGET ? 'ok' : 'MISS']]);
  const naive = naiveCaptureMs.get(1080) ?? Number.NaN;
  const vsNaive = (video1080?.wallMs ?? Number.NaN) / naive;
  targetRows.push([['1080p30 mp4 end to end / naive two-page screenshot capture (issue 43)', `${vsNaive.toFixed(2)}x`, `<= ${VS_NAIVE_CAPTURE_TARGET}x`, vsNaive <= VS_NAIVE_CAPTURE_TARGET ? 'ok' : 'MISS']]);
  print(table(['target', 'measured', 'goal', ''], targetRows.flat()));
  if (video1080 && !(vsNaive <= VS_NAIVE_CAPTURE_TARGET)) {
    // The bound no scheduling can beat on these cores: the video's own CPU spread over all of them.
    const boundMs = (cpuTotal(video1080.cpu) / os.cpus().length) * 1000;
    print(
      `  why the issue 43 ratio misses: the 1080p video's capture, encoding and storing took ${cpuTotal(video1080.cpu).toFixed(2)} CPU-s (Chromium ${video1080.cpu.chromium.toFixed(2)}, ffmpeg ${video1080.cpu.ffmpeg.toFixed(2)}, node ${video1080.cpu.node.toFixed(2)}); ` +
        `over ${os.cpus().length} cores that is ${seconds(boundMs)} s even with no wait at all, ${(boundMs / naive).toFixed(2)}x naive capture's ${seconds(naive)} s, ` +
        `which encodes nothing and whose screenshots wait for Chromium's frame ticks rather than for CPU.`,
    );
  }
  print();
  print(`bench finished in ${seconds(performance.now() - benchStarted)} s (load average now ${os.loadavg().map((load) => load.toFixed(1)).join(' ')})`);
} finally {
  for (const stop of stops.reverse()) await stop().catch((error: unknown) => logger.error({ err: error }, 'bench shutdown step failed'));
  await rm(dataDir, { recursive: true, force: true });
}
