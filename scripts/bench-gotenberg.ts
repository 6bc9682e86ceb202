/**
 * npm run bench:gotenberg: issue 43's comparison with Gotenberg, one system at a time on this machine.
 *
 * First the service as `npm start` runs it (scripts/bench/npm-start-service.ts: a process of its own
 * with its Chromium, PostgreSQL and Temporal), loaded with the bench card (scripts/bench/card.ts) as
 * template renders, each a cache miss (cache: false, a title of its own), answered as JSON like
 * bench:render's template figures: PDFs, then JPEGs. Then Gotenberg from GOTENBERG_BIN, with full
 * Chromium (/usr/bin/chromium, as its Docker image runs it) at GOTENBERG_CONCURRENCY (4) conversions at
 * a time, sent the very document the service renders (the card's data merged into it, a title of its
 * own per request): /forms/chromium/convert/html for PDFs of the card's size, /forms/chromium/screenshot/html
 * for JPEGs. Each at GOTENBERG_CLIENTS (8) clients for GOTENBERG_SECONDS (30) after a warm-up.
 *
 * For each: requests/s, p50/p95, CPU-seconds per request of the system's whole process tree (its root
 * process and every family under it, from /proc as scripts/bench/process-cpu.ts explains) and its peak
 * summed PSS while loaded (scripts/bench/memory-sampler.ts); then issue 43's ratios. A benchmark: it
 * prints the goals beside the figures and fails only when a system does. GOTENBERG_ARGS adds flags to
 * Gotenberg's command line (e.g. --chromium-restart-after=0); GOTENBERG_CHROMIUM replaces its Chromium.
 * Without GOTENBERG_BIN it says how to build Gotenberg and exits 2.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { htmlDocument } from '../application/renders/html-document.js';
import { freePort } from '../infrastructure/system/free-port.js';
import { mustacheMerger } from '../infrastructure/templates/mustache-merger.js';
import { CARD_CSS, CARD_HTML, dataFor, HEIGHT, WIDTH } from './bench/card.js';
import type { CpuWindow, SamplerRequest } from './bench/cpu-sampler.worker.js';
import { cpu, median, ms, print, ratio, runConcurrent, statsOf, table, verdict, type Stats } from './bench/measure.js';
import { MEMORY_FAMILIES, summedPss, watchPeakMemory, type MemorySample } from './bench/memory-sampler.js';
import { createCardTemplate, startNpmStartService } from './bench/npm-start-service.js';
import { chromiumBrowsersUnder, CLOCK_TICKS, readStat } from './bench/process-cpu.js';
import { startThread, type BenchThread } from './bench/threads.js';

const GOTENBERG_BIN = process.env.GOTENBERG_BIN ?? '';
const SECONDS = Number(process.env.GOTENBERG_SECONDS ?? 30);
const CLIENTS = Number(process.env.GOTENBERG_CLIENTS ?? 8);
/** Issue 43: Gotenberg's Chromium at 4 conversions at a time (its own default is 6). */
const GOTENBERG_CONCURRENCY = Number(process.env.GOTENBERG_CONCURRENCY ?? 4);
const GOTENBERG_CHROMIUM = process.env.GOTENBERG_CHROMIUM ?? '/usr/bin/chromium';
const GOTENBERG_ARGS = (process.env.GOTENBERG_ARGS ?? '').split(/\s+/).filter(Boolean);
/**
 * The two systems in turn this many times (service, Gotenberg, service, ...): the machine's speed
 * drifts over minutes, and one pair can land in different phases of it; the goals use the medians.
 */
const ROUNDS = Number(process.env.GOTENBERG_ROUNDS ?? 1);
/** Issue 43's goals: template PDFs at >= 3x Gotenberg's throughput; summed PSS within Gotenberg's + 0.5 GB. */
const TARGETS = { pdfThroughputVsGotenberg: 3, pssOverGotenbergMb: 512 };
/** Rounds of CLIENTS requests before each measured phase: pages warm, Gotenberg's Chromium launched. */
const WARM_UP_ROUNDS = 3;
/** A Chromium just past its warm-up is still busy for a moment with its own start-up work. */
const SETTLE_MS = 2_000;
/** Work a phase's requests cause after their answers (projections, workflow completion) is counted in a tail. */
const CPU_TAIL_MS = 300;
const PSS_EVERY_MS = 250;
const QUIET_WINDOW_MS = 2_000;
const QUIET_SHARE = 0.1;
const REQUEST_TIMEOUT_MS = 60_000;


if (!GOTENBERG_BIN || !existsSync(GOTENBERG_BIN)) {
  process.stderr.write(
    `bench:gotenberg needs a Gotenberg binary: set GOTENBERG_BIN to its path (${GOTENBERG_BIN ? `${GOTENBERG_BIN} does not exist` : 'unset'}).\n` +
      'Build it from its source at the tag compared (issue 43: v8.36.0), in its checkout: CGO_ENABLED=0 go build -o /tmp/gotenberg-bin/gotenberg ./cmd/gotenberg\n',
  );
  process.exit(2);
}

type Output = 'pdf' | 'jpeg';

interface Phase {
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
interface System {
  readonly name: string;
  readonly pid: number;
  readonly dataDir: string;
  send(output: Output, index: number): Promise<void>;
}

/** The CPU seconds a process has used itself, its reaped children apart (those are counted in their families). */
const ownSeconds = (pid: number) => (readStat(pid)?.ownTicks ?? Number.NaN) / CLOCK_TICKS;

/** The card as the service renders it: the same document, with the same data merged (cf. scripts/bench/capture-load.worker.ts). */
const cardDocument = (index: number, scaleFactor: number) =>
  htmlDocument(mustacheMerger.merge(CARD_HTML, dataFor(index)), CARD_CSS, { width: WIDTH, height: HEIGHT, scaleFactor, waitTime: 0 }).html;

/*
 * The clients run here with fetch, the same for both systems: each system is a process tree of its
 * own, so the bench's CPU is in neither's figures; the /proc sampler runs in a thread of its own
 * (scripts/bench/cpu-sampler.worker.ts) so that its 100 ms samples do not wait on the clients.
 */
const sampler: BenchThread<SamplerRequest, unknown> = startThread(new URL('./bench/cpu-sampler.worker.ts', import.meta.url));
let nextIndex = 0;

let round = 1;

const measure = async (system: System, output: Output): Promise<Phase> => {
  await runConcurrent({ concurrency: CLIENTS, maxCount: CLIENTS * WARM_UP_ROUNDS, maxMs: 120_000 }, async () => {
    await system.send(output, nextIndex++);
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
    const run = await runConcurrent({ concurrency: CLIENTS, maxCount: Number.MAX_SAFE_INTEGER, maxMs: SECONDS * 1000 }, async () => {
      const started = performance.now();
      await system.send(output, nextIndex++);
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
  const per = (seconds: number) => seconds / stats.n;
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
  print(`  round ${round}, ${system.name} ${output} c${CLIENTS}: n=${stats.n} p50 ${ms(stats.p50)} ms, ${stats.perSecond.toFixed(2)}/s, ${cpu(phase.cpu.total)} CPU-s/request, peak PSS ${summedPss(peak).toFixed(0)} MB`);
  return phase;
};

/**
 * How busy the machine's CPUs were over a couple of seconds, with neither system running: the
 * figures are only comparable when this is near zero before each system (one system at a time on a
 * quiet machine). The load average would not tell, since it still carries the previous system's run.
 */
const checkQuiet = async (before: string) => {
  const busy = () => os.cpus().reduce((sum, { times }) => ({ busy: sum.busy + times.user + times.nice + times.sys + times.irq, all: sum.all + times.user + times.nice + times.sys + times.irq + times.idle }), { busy: 0, all: 0 });
  const start = busy();
  await sleep(QUIET_WINDOW_MS);
  const end = busy();
  const share = (end.busy - start.busy) / (end.all - start.all);
  print(`${before}: the machine's CPUs ${(share * 100).toFixed(0)}% busy over ${QUIET_WINDOW_MS / 1000} s${share > QUIET_SHARE ? ' - NOT QUIET: the figures will carry the other work' : ''}`);
};

/** The service as npm start runs it, its card template, and both phases; stopped before Gotenberg starts. */
const benchService = async (): Promise<{ phases: Phase[]; quality: number; scaleFactor: number }> => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-bench-gotenberg-'));
  // The embedded PostgreSQL may run as user postgres, which must be able to enter this folder.
  await chmod(dataDir, 0o755);
  await checkQuiet('before the service');
  const service = await startNpmStartService({ dataDir, port: await freePort(), apiKey: `rk_bench_${randomBytes(16).toString('hex')}` });
  try {
    const template = await createCardTemplate(service, 'Gotenberg comparison card');
    // Gotenberg's JPEGs are asked at the quality and scale the template renders at (its defaults: created without either).
    const settings = await service.api.call<{ quality: number; scaleFactor: number }>('GET', `/api/v2/my-templates/${template}`);
    const system: System = {
      name: 'service',
      pid: service.pid,
      dataDir,
      async send(output, index) {
        const answer = await service.api.send('POST', '/api/v2/render', { template, outputFormat: output, cache: false, data: dataFor(index) });
        if (answer.status !== 200) throw new Error(`the service's ${output} render answered ${answer.status}: ${answer.text.slice(0, 300)}`);
      },
    };
    print(`service up: npm start's process (pid ${service.pid}), template ${template}`);
    return { phases: [await measure(system, 'pdf'), await measure(system, 'jpeg')], quality: settings.quality, scaleFactor: settings.scaleFactor };
  } finally {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
};

/** Where Gotenberg's image has the binaries of its PDF engines and LibreOffice (build/Dockerfile). */
const ENGINE_BINARIES = {
  QPDF_BIN_PATH: '/usr/bin/qpdf',
  EXIFTOOL_BIN_PATH: '/usr/bin/exiftool',
  PDFTK_BIN_PATH: '/usr/bin/pdftk',
  PDFCPU_BIN_PATH: '/usr/bin/pdfcpu',
  LIBREOFFICE_BIN_PATH: '/usr/lib/libreoffice/program/soffice.bin',
  UNOCONVERTER_BIN_PATH: '/usr/bin/unoconverter',
};

/*
 * Gotenberg as its Docker image runs it (build/Dockerfile): full Chromium, OpenTelemetry off, its
 * defaults otherwise (a Chromium restart every 100 conversions among them). Gotenberg only checks at
 * start that its PDF engines' and LibreOffice's binaries exist; the conversions measured call none of
 * them (no PDF/A, metadata, split...), so one missing here is stood in for by a script that fails
 * loudly, and a request that did reach it would fail the bench. What the comparison does not use is
 * off: LibreOffice's and the PDF engines' routes, webhooks, Prometheus's collection, the start-up
 * probe of every binary's version. Those settings go in the environment, as Gotenberg's images set
 * theirs (it reads each flag from a variable of its name), and that environment is built here rather
 * than inherited, so no variable of the bench's own can change a flag unseen.
 */
const benchGotenberg = async (quality: number, scaleFactor: number): Promise<Phase[]> => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gotenberg-bench-'));
  const port = await freePort();
  // Gotenberg links this folder into each Chromium profile; the card needs no hyphenation data.
  const hyphenData = process.env.CHROMIUM_HYPHEN_DATA_DIR_PATH ?? path.join(dataDir, 'hyphen-data');
  await mkdir(hyphenData, { recursive: true });
  const missing = path.join(dataDir, 'not-installed');
  await writeFile(missing, '#!/bin/sh\necho "$0: not installed on this machine (bench:gotenberg)" >&2\nexit 127\n', { mode: 0o755 });
  const engines = Object.fromEntries(Object.entries(ENGINE_BINARIES).map(([name, binary]) => [name, existsSync(binary) ? binary : missing]));
  const settings = {
    CHROMIUM_MAX_CONCURRENCY: String(GOTENBERG_CONCURRENCY),
    LIBREOFFICE_DISABLE_ROUTES: 'true',
    PDFENGINES_DISABLE_ROUTES: 'true',
    WEBHOOK_DISABLE: 'true',
    PROMETHEUS_DISABLE_COLLECT: 'true',
    GOTENBERG_BUILD_DEBUG_DATA: 'false',
    GOTENBERG_HIDE_BANNER: 'true',
    GOTENBERG_GRACEFUL_SHUTDOWN_DURATION: '5s',
    LOG_LEVEL: 'error',
  };
  const args = [`--api-port=${port}`, '--api-bind-ip=127.0.0.1', ...GOTENBERG_ARGS];
  await checkQuiet('before Gotenberg');
  // Beside its folder, which goes at the end: kept when Gotenberg logged more than its start-up lines (errors only at this level).
  const logPath = `${dataDir}.log`;
  const log = createWriteStream(logPath);
  const child = spawn(GOTENBERG_BIN, args, {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dataDir,
      // Gotenberg's working files and Chromium profiles: removed with the folder.
      TMPDIR: dataDir,
      LANG: 'C.UTF-8',
      CHROMIUM_BIN_PATH: GOTENBERG_CHROMIUM,
      CHROMIUM_HYPHEN_DATA_DIR_PATH: hyphenData,
      ...engines,
      ...settings,
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Both into one file, which is ended once Gotenberg has exited (either stream's end would end it).
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  try {
    for (const deadline = Date.now() + 60_000; ; await sleep(250)) {
      if (child.exitCode !== null) throw new Error(`Gotenberg exited with ${child.exitCode}; see ${logPath}`);
      if (await fetch(`${base}/health`).then((response) => response.ok, () => false)) break;
      if (Date.now() > deadline) throw new Error('Gotenberg was not healthy within 60 s');
    }
    const version = await fetch(`${base}/version`).then((response) => response.text(), () => '?');
    // The service's own print and capture: one page of the card's size (pageRanges 1, backgrounds); a JPEG of the viewport at the template's quality.
    const fields: Record<Output, [string, Record<string, string>]> = {
      pdf: [
        '/forms/chromium/convert/html',
        { paperWidth: `${WIDTH}px`, paperHeight: `${HEIGHT}px`, marginTop: '0', marginBottom: '0', marginLeft: '0', marginRight: '0', printBackground: 'true', nativePageRanges: '1' },
      ],
      jpeg: [
        '/forms/chromium/screenshot/html',
        { width: String(WIDTH), height: String(HEIGHT), clip: 'true', format: 'jpeg', quality: String(quality), optimizeForSpeed: 'true', deviceScaleFactor: String(scaleFactor) },
      ],
    };
    const system: System = {
      name: 'gotenberg',
      pid: child.pid as number,
      dataDir,
      async send(output, index) {
        const [route, options] = fields[output];
        const form = new FormData();
        form.append('files', new Blob([cardDocument(index, scaleFactor)], { type: 'text/html' }), 'index.html');
        for (const [name, value] of Object.entries(options)) form.append(name, value);
        const response = await fetch(`${base}${route}`, { method: 'POST', body: form, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
        const body = Buffer.from(await response.arrayBuffer());
        if (response.status !== 200) throw new Error(`Gotenberg's ${route} answered ${response.status}: ${body.toString('utf8').slice(0, 300)}`);
        const type = response.headers.get('content-type') ?? '';
        if (!type.startsWith(output === 'pdf' ? 'application/pdf' : 'image/jpeg')) throw new Error(`Gotenberg's ${route} answered ${type}, not ${output}`);
      },
    };
    const standIns = Object.entries(engines).filter(([, binary]) => binary === missing).map(([name]) => name);
    print(
      `Gotenberg ${version.trim()} up (pid ${child.pid}, CHROMIUM_BIN_PATH=${GOTENBERG_CHROMIUM}, ${Object.entries(settings).map(([name, value]) => `${name}=${value}`).join(' ')}` +
        `${GOTENBERG_ARGS.length > 0 ? `, ${GOTENBERG_ARGS.join(' ')}` : ''}; not installed, never called: ${standIns.join(', ') || 'none'})`,
    );
    return [await measure(system, 'pdf'), await measure(system, 'jpeg')];
  } finally {
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(15_000).then(() => child.kill('SIGKILL'))]);
    await new Promise((resolve) => log.end(resolve));
    await rm(dataDir, { recursive: true, force: true });
    const logged = (await readFile(logPath, 'utf8')).split('\n').filter((line) => line.trim() && !line.startsWith('[SYSTEM]'));
    if (logged.length > 0) print(`Gotenberg logged ${logged.length} lines past its start (errors: a Chromium restart's cause shows here): ${logPath}`);
    else await rm(logPath, { force: true });
  }
};

const report = (phases: readonly Phase[]) => {
  print();
  print(`== ${CLIENTS} clients, ${SECONDS} s per phase, one system at a time (${os.cpus().length} cores)`);
  print('   service: POST /api/v2/render { template, outputFormat, cache: false, data } answered as JSON; CPU of node, its Chromium, Temporal and PostgreSQL');
  print(`   gotenberg: the same document posted as index.html, Chromium concurrency ${GOTENBERG_CONCURRENCY}; CPU of gotenberg and its Chromium`);
  print('   (Gotenberg opens a tab per conversion and restarts its Chromium every 100 conversions unless GOTENBERG_ARGS says otherwise: new processes and browsers seen show both)');
  print(table(
    ['phase', 'n', 'p50 ms', 'p95 ms', 'per s', 'CPU-s/req', 'root', 'chromium', 'temporal', 'postgres', 'other', 'new chromium procs/req', 'browsers seen'],
    phases.map(({ round: r, system, output, stats, cpu: c, newChromium, browsers }) => [
      `${ROUNDS > 1 ? `${r}: ` : ''}${system} ${output}`,
      String(stats.n),
      ms(stats.p50),
      ms(stats.p95),
      stats.perSecond.toFixed(2),
      cpu(c.total),
      cpu(c.root),
      cpu(c.chromium),
      cpu(c.temporal),
      cpu(c.postgres),
      cpu(c.other),
      newChromium.toFixed(2),
      String(browsers),
    ]),
  ));
  for (const system of ['service', 'gotenberg']) {
    print(`   ${system}'s Chromium: ${[...new Set(phases.filter((phase) => phase.system === system).flatMap((phase) => phase.chromiumBinaries))].join(', ') || '-'}`);
  }
  print();
  print('== peak summed PSS under load, MB (root: the node or gotenberg process itself; processes in brackets)');
  print(table(
    ['phase', 'total', ...MEMORY_FAMILIES.map((family) => (family === 'node' ? 'root' : family))],
    phases.map(({ round: r, system, output, peak }) => [
      `${ROUNDS > 1 ? `${r}: ` : ''}${system} ${output}`,
      summedPss(peak).toFixed(0),
      ...MEMORY_FAMILIES.map((family) => `${peak.pssMb[family].toFixed(0)} (${peak.processes[family]})`),
    ]),
  ));

  // Over the rounds, the median of each figure (one round: its own figures).
  const of = (system: string, output: Output) => phases.filter((phase) => phase.system === system && phase.output === output);
  const medianOf = (system: string, output: Output, pick: (phase: Phase) => number) => median(of(system, output).map(pick));
  const peakOf = (system: string) => Math.max(...phases.filter((phase) => phase.system === system).map((phase) => summedPss(phase.peak)));
  const rows: string[][] = [];
  for (const output of ['pdf', 'jpeg'] as const) {
    if (of('service', output).length === 0 || of('gotenberg', output).length === 0) continue;
    const [perSecond, p50, cpuTotal] = [(phase: Phase) => phase.stats.perSecond, (phase: Phase) => phase.stats.p50, (phase: Phase) => phase.cpu.total];
    const throughput = medianOf('service', output, perSecond) / medianOf('gotenberg', output, perSecond);
    const goal = output === 'pdf';
    rows.push([`${output} throughput, service / Gotenberg`, ratio(throughput), goal ? `>= ${TARGETS.pdfThroughputVsGotenberg}x` : '', goal ? verdict(throughput >= TARGETS.pdfThroughputVsGotenberg) : '']);
    if (ROUNDS > 1) {
      const perRound = Array.from({ length: ROUNDS }, (_, index) => {
        const [ours, theirs] = [of('service', output)[index], of('gotenberg', output)[index]];
        return ours && theirs ? ratio(ours.stats.perSecond / theirs.stats.perSecond) : '-';
      });
      rows.push([`  (each round)`, perRound.join(' '), '', '']);
    }
    rows.push([`${output} p50, service / Gotenberg`, ratio(medianOf('service', output, p50) / medianOf('gotenberg', output, p50)), '', '']);
    rows.push([`${output} CPU per request, service / Gotenberg`, ratio(medianOf('service', output, cpuTotal) / medianOf('gotenberg', output, cpuTotal)), '', '']);
  }
  const [ourPeak, theirPeak] = [peakOf('service'), peakOf('gotenberg')];
  rows.push([
    'peak summed PSS under PDF and image load, service - Gotenberg',
    `${ourPeak.toFixed(0)} - ${theirPeak.toFixed(0)} = ${(ourPeak - theirPeak).toFixed(0)} MB`,
    `<= +${TARGETS.pssOverGotenbergMb} MB`,
    verdict(ourPeak - theirPeak <= TARGETS.pssOverGotenbergMb),
  ]);
  print();
  print(`== issue 43 against Gotenberg${ROUNDS > 1 ? ` (medians of ${ROUNDS} rounds; PSS: the highest peak)` : ''}`);
  print(table(['measure', 'measured', 'goal', ''], rows));
};

const started = performance.now();
try {
  print(`bench:gotenberg: ${ROUNDS} round${ROUNDS > 1 ? 's' : ''}, ${CLIENTS} clients, ${SECONDS} s per phase, ${os.cpus().length} cores, node ${process.version}; Gotenberg from ${GOTENBERG_BIN}`);
  const phases: Phase[] = [];
  for (; round <= ROUNDS; round++) {
    const service = await benchService();
    phases.push(...service.phases, ...(await benchGotenberg(service.quality, service.scaleFactor)));
  }
  report(phases);
  print();
  print(`bench finished in ${((performance.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  process.exitCode = 1;
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
} finally {
  await sampler.stop();
}
