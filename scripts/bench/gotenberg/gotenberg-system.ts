import { spawn } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { htmlDocument } from '../../../application/renders/html-document.js';
import { freePort } from '../../../infrastructure/system/free-port.js';
import { mustacheMerger } from '../../../infrastructure/templates/mustache-merger.js';
import { CARD_CSS, CARD_HTML, dataFor, HEIGHT, WIDTH } from '../card.js';
import { print } from '../measure.js';
import { checkQuiet, type MeasurePhase, type Output, type Phase, type System } from './phase.js';

/** How Gotenberg is run: its binary, its Chromium's concurrency, the Chromium it drives and flags of the bench's caller. */
export interface GotenbergSettings {
  readonly binary: string;
  readonly concurrency: number;
  readonly chromium: string;
  readonly args: readonly string[];
}

const REQUEST_TIMEOUT_MS = 60_000;

/** The card as the service renders it: the same document, with the same data merged (cf. scripts/bench/capture-load.worker.ts). */
const cardDocument = (index: number, scaleFactor: number) =>
  htmlDocument(mustacheMerger.merge(CARD_HTML, dataFor(index)), CARD_CSS, { width: WIDTH, height: HEIGHT, scaleFactor, waitTime: 0 }).html;

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
export const benchGotenberg = async (measure: MeasurePhase, round: number, { binary, concurrency, chromium, args: extraArgs }: GotenbergSettings, { quality, scaleFactor }: { quality: number; scaleFactor: number }): Promise<Phase[]> => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gotenberg-bench-'));
  const port = await freePort();
  // Gotenberg links this folder into each Chromium profile; the card needs no hyphenation data.
  const hyphenData = process.env.CHROMIUM_HYPHEN_DATA_DIR_PATH ?? path.join(dataDir, 'hyphen-data');
  await mkdir(hyphenData, { recursive: true });
  const missing = path.join(dataDir, 'not-installed');
  await writeFile(missing, '#!/bin/sh\necho "$0: not installed on this machine (bench:gotenberg)" >&2\nexit 127\n', { mode: 0o755 });
  const engines = Object.fromEntries(Object.entries(ENGINE_BINARIES).map(([name, binary]) => [name, existsSync(binary) ? binary : missing]));
  const settings = {
    CHROMIUM_MAX_CONCURRENCY: String(concurrency),
    LIBREOFFICE_DISABLE_ROUTES: 'true',
    PDFENGINES_DISABLE_ROUTES: 'true',
    WEBHOOK_DISABLE: 'true',
    PROMETHEUS_DISABLE_COLLECT: 'true',
    GOTENBERG_BUILD_DEBUG_DATA: 'false',
    GOTENBERG_HIDE_BANNER: 'true',
    GOTENBERG_GRACEFUL_SHUTDOWN_DURATION: '5s',
    LOG_LEVEL: 'error',
  };
  const args = [`--api-port=${port}`, '--api-bind-ip=127.0.0.1', ...extraArgs];
  await checkQuiet('before Gotenberg');
  // Beside its folder, which goes at the end: kept when Gotenberg logged more than its start-up lines (errors only at this level).
  const logPath = `${dataDir}.log`;
  const log = createWriteStream(logPath);
  const child = spawn(binary, args, {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dataDir,
      // Gotenberg's working files and Chromium profiles: removed with the folder.
      TMPDIR: dataDir,
      LANG: 'C.UTF-8',
      CHROMIUM_BIN_PATH: chromium,
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
      `Gotenberg ${version.trim()} up (pid ${child.pid}, CHROMIUM_BIN_PATH=${chromium}, ${Object.entries(settings).map(([name, value]) => `${name}=${value}`).join(' ')}` +
        `${extraArgs.length > 0 ? `, ${extraArgs.join(' ')}` : ''}; not installed, never called: ${standIns.join(', ') || 'none'})`,
    );
    return [await measure(system, 'pdf', round), await measure(system, 'jpeg', round)];
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
