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
 *
 * Each section is a module of scripts/bench/video/, handed the service under test (video-context.ts);
 * this file measures them in order, prints their tables, and stops everything however it ends.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../infrastructure/config/logger.js';
import { print, seconds } from './bench/measure.js';
import { measureCaptureAndEncode, printCaptureAndEncode } from './bench/video/capture-encode.js';
import { measureChunkedRuns, printChunkedRuns } from './bench/video/chunked-runs.js';
import { measureEndToEnd, printEndToEnd } from './bench/video/end-to-end.js';
import { startVideoService } from './bench/video/video-service.js';
import { printVideoTargets } from './bench/video/video-targets.js';
import { printVsRawCapture } from './bench/video/vs-raw-capture.js';

const loadAverage = () => os.loadavg().map((load) => load.toFixed(1)).join(' ');

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'video-bench-'));
// The embedded PostgreSQL may run as user postgres, which must be able to enter this folder.
await chmod(dataDir, 0o755);
const logger = createLogger(process.env.LOG_LEVEL ?? 'warn');
const stops: (() => Promise<unknown>)[] = [];
const benchStarted = performance.now();

try {
  print(`video benchmark: ${os.cpus().length} cores, load average ${loadAverage()}, node ${process.version}`);
  const bench = await startVideoService({ dataDir, logger, stops, benchStarted });
  const videos = await measureEndToEnd(bench);
  const captures = await measureCaptureAndEncode(bench);
  const chunkedRows = process.env.BENCH_VIDEO_CHUNKED === 'off' ? [] : await measureChunkedRuns(bench);

  printEndToEnd(videos);
  printCaptureAndEncode(captures);
  if (chunkedRows.length > 0) printChunkedRuns(chunkedRows);
  printVsRawCapture(videos, captures);
  printVideoTargets(videos, captures);
  print();
  print(`bench finished in ${seconds(performance.now() - benchStarted)} s (load average now ${loadAverage()})`);
} finally {
  for (const stop of stops.reverse()) await stop().catch((error: unknown) => logger.error({ err: error }, 'bench shutdown step failed'));
  await rm(dataDir, { recursive: true, force: true });
}
