import path from 'node:path';
import type { VideoDocument } from '../../../application/ports/video-renderer.js';
import { frameTimeMs } from '../../../domain/renders/video-timing.js';
import { resolveValues } from '../../../domain/templates/components/resolve-values.js';
import { createHtmlCanvasRenderer } from '../../../infrastructure/canvas/html-canvas-renderer.js';
import { createBrowserPool, type BrowserPool } from '../../../infrastructure/rendering/browser-pool.js';
import { createHostPolicy } from '../../../infrastructure/rendering/network-guard.js';
import { NO_ORG_ASSETS } from '../../../infrastructure/rendering/org-assets.js';
import { prepareRenderPage } from '../../../infrastructure/rendering/page-confinement.js';
import { prepareTemplateHost } from '../../../infrastructure/rendering/template-document.js';
import { startEncoder } from '../../../infrastructure/video/ffmpeg-encoder.js';
import { openFramePage } from '../../../infrastructure/video/virtual-clock-page.js';
import { print, seconds, table } from '../measure.js';
import { cpuMeter } from './cpu-meter.js';
import { motionGraphics } from './motion-graphics.js';
import { cpuMsPerFrame, DURATION_MS, FORMATS, FPS, FRAMES, framesPerSecond, SIZES, type VideoBench } from './video-context.js';

/*
 * Capture and encoding apart, on the same page: frames captured into memory by 1 and by 2 pages
 * (each taking the next frame when free, as the renderer does), then those frames fed to ffmpeg.
 */

export interface CaptureRun {
  readonly rows: string[][];
  /** CPU ms per frame by height: capture (Chromium + this process, on demand, 1 page) and encoding (ffmpeg, mp4). */
  readonly perFrame: Map<number, { captureMs: number; encodeMs: number }>;
  /** Wall ms of the raw baseline by height: two pages drawing every frame on demand, as the worker's two video browsers do. */
  readonly rawCaptureMs: Map<number, number>;
  /** Wall ms of naive capture by height: two pages taking a screenshot of every frame. */
  readonly naiveCaptureMs: Map<number, number>;
}

type HostPolicy = ReturnType<typeof createHostPolicy>;

/**
 * As the worker has them: frames drawn on demand by chrome-headless-shell, one page per browser;
 * and screenshots of the render pool's Chromium, which videos fall back to without the shell.
 */
const startPools = async ({ config, logger, stops }: VideoBench, hostPolicy: HostPolicy) => {
  const poolSetup = {
    logger,
    extraArgs: config.CHROMIUM_NO_SANDBOX ? ['--no-sandbox'] : [],
    preparePage: prepareRenderPage(hostPolicy, NO_ORG_ASSETS),
    resetPage: prepareTemplateHost,
  };
  const pools: { name: string; pool: BrowserPool }[] = [
    { name: 'on demand', pool: createBrowserPool({ ...poolSetup, executablePath: config.VIDEO_CHROMIUM_PATH, framesOnDemand: true, browsers: 2, pagesPerBrowser: 1, tenantShare: 1 }) },
    { name: 'screenshot', pool: createBrowserPool({ ...poolSetup, executablePath: config.CHROMIUM_PATH, browsers: 1, pagesPerBrowser: 2, tenantShare: 1 }) },
  ];
  for (const { pool } of pools) {
    stops.push(() => pool.close());
    await pool.warmUp();
  }
  return pools;
};

/** Every frame of the video captured into memory by `pages` pages of the pool. */
const captureFrames = async (pool: BrowserPool, pages: number, videoDocument: VideoDocument, hostPolicy: HostPolicy) => {
  const frames = new Array<Buffer>(FRAMES);
  let next = 0;
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
  return frames;
};

export const measureCaptureAndEncode = async (bench: VideoBench): Promise<CaptureRun> => {
  const hostPolicy = createHostPolicy({ allowedPrivateHosts: [] });
  const pools = await startPools(bench, hostPolicy);
  const canvas = createHtmlCanvasRenderer();
  const run: CaptureRun = { rows: [], perFrame: new Map(), rawCaptureMs: new Map(), naiveCaptureMs: new Map() };
  for (const size of SIZES) {
    const document = motionGraphics(size);
    const html = await canvas.toHtml(document, resolveValues(document, {}), size);
    const videoDocument = { html, ...size, scaleFactor: 1, waitTime: 0, fps: FPS, durationMs: DURATION_MS };
    let frames: Buffer[] = [];
    let captureCpuPerFrame = Number.NaN;
    for (const { name, pool } of pools) {
      for (const pages of [1, 2]) {
        const stopMeter = cpuMeter();
        const started = performance.now();
        frames = await captureFrames(pool, pages, videoDocument, hostPolicy);
        const wallMs = performance.now() - started;
        const cpu = stopMeter();
        if (name === 'on demand' && pages === 1) captureCpuPerFrame = cpuMsPerFrame(cpu.chromium + cpu.node);
        if (name === 'on demand' && pages === 2) run.rawCaptureMs.set(size.height, wallMs);
        if (name === 'screenshot' && pages === 2) run.naiveCaptureMs.set(size.height, wallMs);
        run.rows.push([
          `${size.height}p capture ${name}, ${pages} page${pages > 1 ? 's' : ''} (incl. page load)`,
          seconds(wallMs),
          framesPerSecond(wallMs),
          cpu.chromium.toFixed(1),
          '-',
          cpu.node.toFixed(1),
          cpuMsPerFrame(cpu.chromium).toFixed(1),
        ]);
      }
    }
    for (const format of FORMATS) {
      const stopMeter = cpuMeter();
      const started = performance.now();
      const encoder = startEncoder({ format, fps: FPS, frameCodec: 'mjpeg', quality: 80, crop: null, outputPath: path.join(bench.dataDir, `encode-only.${format}`) });
      for (const frame of frames) await encoder.write(frame);
      await encoder.finish();
      const wallMs = performance.now() - started;
      const cpu = stopMeter();
      if (format === 'mp4') run.perFrame.set(size.height, { captureMs: captureCpuPerFrame, encodeMs: cpuMsPerFrame(cpu.ffmpeg) });
      run.rows.push([
        `${size.height}p encode ${format} (frames from memory)`,
        seconds(wallMs),
        framesPerSecond(wallMs),
        '-',
        cpu.ffmpeg.toFixed(1),
        cpu.node.toFixed(1),
        cpuMsPerFrame(cpu.ffmpeg).toFixed(1),
      ]);
    }
  }
  return run;
};

export const printCaptureAndEncode = ({ rows, perFrame }: CaptureRun) => {
  print();
  print('== capture and encoding apart (same pages and frames; CPU seconds, and CPU ms per frame of the program doing the step)');
  print(table(['step', 'wall s', 'frames/s', 'cpu chromium', 'cpu ffmpeg', 'cpu node', 'cpu ms/frame'], rows));
  for (const [height, { captureMs, encodeMs }] of perFrame) {
    print(`  ${height}p: capture ${captureMs.toFixed(1)} ms CPU per frame (Chromium + this process, on demand, 1 page), encode ${encodeMs.toFixed(1)} ms CPU per frame (ffmpeg, mp4)`);
  }
};
