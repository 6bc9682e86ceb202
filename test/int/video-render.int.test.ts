import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoDocument, VideoProgress } from '../../application/ports/video-renderer.js';
import { DomainError } from '../../domain/shared/errors.js';
import { createBrowserPool, type BrowserPool } from '../../infrastructure/rendering/browser-pool.js';
import { createHostPolicy } from '../../infrastructure/rendering/network-guard.js';
import { prepareRenderPage } from '../../infrastructure/rendering/page-confinement.js';
import { NO_ORG_ASSETS } from '../../infrastructure/rendering/org-assets.js';
import { prepareTemplateHost } from '../../infrastructure/rendering/template-document.js';
import { createChromiumVideoRenderer } from '../../infrastructure/video/chromium-video-renderer.js';
import { decodeVideoFrames, pixelAt, probeVideoFile } from '../support/video-files.js';

const BITS = 8;
const BIT_WIDTH = 20;
const BIT_HEIGHT = 40;
const BOX = 20;
const BOX_TOP = 60;

/**
 * A fixture of the canvas contract: `__seekFrame(t)` writes the frame number t stands for as a row
 * of black/white blocks (bit 0 on the left), which survives lossy encoding; a box slides across by
 * a CSS animation, which the virtual clock must pose as well.
 */
const fixture = ({ width = 320, height = 120, durationMs = 1000, fps = 30, throwAfterMs = Infinity } = {}): VideoDocument => ({
  width,
  height,
  fps,
  durationMs,
  scaleFactor: 1,
  waitTime: 0,
  html: `<!doctype html><html><head><style>
    html,body{margin:0;width:${width}px;height:${height}px;overflow:hidden;background:#808080}
    .bit{position:absolute;top:0;width:${BIT_WIDTH}px;height:${BIT_HEIGHT}px;background:#000}
    #box{position:absolute;top:${BOX_TOP}px;left:0;width:${BOX}px;height:${BOX}px;background:#f00;animation:slide ${durationMs}ms linear both}
    @keyframes slide{from{transform:translateX(0)}to{transform:translateX(${width - BOX}px)}}
  </style></head><body>
    ${Array.from({ length: BITS }, (_, bit) => `<div class="bit" id="b${bit}" style="left:${bit * BIT_WIDTH}px"></div>`).join('')}
    <div id="box"></div>
    <script>
      window.__seekFrame = (t) => {
        if (t > ${throwAfterMs}) throw new Error('broken animation');
        const frame = Math.round(t * ${fps} / 1000);
        for (let bit = 0; bit < ${BITS}; bit++) document.getElementById('b' + bit).style.background = (frame >> bit) & 1 ? '#fff' : '#000';
      };
    </script>
  </body></html>`,
});

const luma = (frame: Buffer, width: number, x: number, y: number) => pixelAt(frame, width, x, y).reduce((sum, channel) => sum + channel, 0) / 3;

const frameNumberOf = (frame: Buffer, width: number) =>
  Array.from({ length: BITS }, (_, bit) => (luma(frame, width, bit * BIT_WIDTH + BIT_WIDTH / 2, BIT_HEIGHT / 2) > 128 ? 1 << bit : 0)).reduce((a, b) => a + b, 0);

/** Left edge of the red box on its row. */
const boxLeftOf = (frame: Buffer, width: number) => {
  const y = BOX_TOP + BOX / 2;
  for (let x = 0; x < width; x++) {
    const [red, green] = pixelAt(frame, width, x, y);
    if (red > 180 && green < 90) return x;
  }
  return -1;
};

let pool: BrowserPool;
let workDir: string;
let outputDir: string;
const logger = pino({ level: 'silent' });
const hostPolicy = createHostPolicy({ allowedPrivateHosts: [] });

const renderer = (pagesPerVideo: number) => createChromiumVideoRenderer({ pool, hostPolicy, loadTimeoutMs: 10_000, pagesPerVideo, workDir });

const saved = async (content: Buffer, name: string) => {
  const file = path.join(outputDir, name);
  await writeFile(file, content);
  return file;
};

beforeAll(async () => {
  pool = createBrowserPool({ browsers: 1, pagesPerBrowser: 3, logger, preparePage: prepareRenderPage(hostPolicy, NO_ORG_ASSETS), resetPage: prepareTemplateHost });
  await pool.warmUp();
  workDir = await mkdtemp(path.join(os.tmpdir(), 'video-work-'));
  outputDir = await mkdtemp(path.join(os.tmpdir(), 'video-out-'));
});

afterAll(async () => {
  await pool?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
  if (outputDir) await rm(outputDir, { recursive: true, force: true });
});

describe('video rendering on a virtual clock (Chromium + ffmpeg)', () => {
  it('encodes H.264 yuv420p mp4 with faststart, every frame, the exact duration', async () => {
    const progress: VideoProgress[] = [];
    const video = await renderer(1).render(fixture({ fps: 30, durationMs: 1000 }), { tenant: 'org-video', format: 'mp4', quality: 80, crop: null }, {
      onProgress: (update) => progress.push(update),
    });
    expect(video).toMatchObject({ contentType: 'video/mp4', width: 320, height: 120, frames: 30 });
    const file = await saved(video.content, 'a.mp4');
    const probed = await probeVideoFile(file);
    expect(probed).toMatchObject({ codec: 'h264', pixelFormat: 'yuv420p', width: 320, height: 120, frames: 30 });
    expect(probed.duration).toBeCloseTo(1, 2);
    // faststart: the index comes before the media data, so players start before the download ends.
    expect(video.content.indexOf('moov')).toBeLessThan(video.content.indexOf('mdat'));
    expect(progress.map((update) => update.framesCaptured)).toEqual(Array.from({ length: 30 }, (_, index) => index + 1));
    expect(new Set(progress.map((update) => update.framesTotal))).toEqual(new Set([30]));
    // Nothing is left behind in the work folder: frames never touch the disk, the file is removed once read.
    expect(await readdir(workDir)).toEqual([]);
  });

  it('encodes VP9 webm at 24 fps with every frame', async () => {
    const video = await renderer(1).render(fixture({ fps: 24, durationMs: 1500 }), { tenant: 'org-video', format: 'webm', quality: 80, crop: null });
    expect(video).toMatchObject({ contentType: 'video/webm', frames: 36 });
    const probed = await probeVideoFile(await saved(video.content, 'b.webm'));
    expect(probed).toMatchObject({ codec: 'vp9', pixelFormat: 'yuv420p', width: 320, height: 120, frames: 36 });
    expect(probed.duration).toBeCloseTo(1.5, 1);
  });

  it.each([
    ['mp4', 1],
    ['webm', 3],
  ] as const)('shows in frame i exactly the instant i / fps (%s, %i pages)', async (format, pages) => {
    const fps = 25;
    const durationMs = 2000;
    const width = 320;
    const video = await renderer(pages).render(fixture({ fps, durationMs, width }), { tenant: 'org-video', format, quality: 80, crop: null });
    const frames = await decodeVideoFrames(await saved(video.content, `c.${format}`), width, 120);
    expect(frames.map((frame) => frameNumberOf(frame, width))).toEqual(Array.from({ length: 50 }, (_, index) => index));
    // The CSS animation follows the same clock: at frame i the box has slid i/50 of the way.
    for (const index of [0, 10, 25, 49]) {
      const expected = ((index / fps) * 1000 * (width - BOX)) / durationMs;
      const left = boxLeftOf(frames[index] ?? Buffer.alloc(0), width);
      expect(Math.abs(left - expected), `frame ${index}: the box's left edge at ${left} px, expected ${expected} px`).toBeLessThanOrEqual(2);
    }
  });

  it('pads odd sizes to even ones and crops from the top-left corner', async () => {
    const odd = await renderer(1).render(fixture({ width: 161, height: 99, durationMs: 1000 }), { tenant: 'org-video', format: 'mp4', quality: 60, crop: null });
    expect(odd).toMatchObject({ width: 162, height: 100 });
    const cropped = await renderer(1).render(fixture({ durationMs: 1000 }), { tenant: 'org-video', format: 'webm', quality: 60, crop: { width: 200, height: 60 } });
    expect(cropped).toMatchObject({ width: 200, height: 60 });
    expect(await probeVideoFile(await saved(cropped.content, 'd.webm'))).toMatchObject({ width: 200, height: 60, frames: 30 });
  });

  it('fails with a validation error when the animation throws, and frees its pages and files', async () => {
    const failure = renderer(2).render(fixture({ throwAfterMs: 500 }), { tenant: 'org-video', format: 'mp4', quality: 80, crop: null });
    // Two pages pose frames 16 and 17 side by side; either may be the first to report its failure.
    await expect(failure).rejects.toThrow(/animation failed at (533\.3|566\.7) ms: Error: broken animation/);
    await expect(failure).rejects.toBeInstanceOf(DomainError);
    expect(await readdir(workDir)).toEqual([]);
    // The pool closes a page's context after the render let go of it.
    await expect.poll(() => pool.stats().inFlight, { timeout: 5_000 }).toBe(0);
  });

  it('stops when its signal aborts', async () => {
    const abort = new AbortController();
    const failure = renderer(1).render(fixture({ durationMs: 10_000 }), { tenant: 'org-video', format: 'mp4', quality: 80, crop: null }, {
      signal: abort.signal,
      onProgress: ({ framesCaptured }) => {
        if (framesCaptured === 5) abort.abort(new Error('cancelled by the test'));
      },
    });
    await expect(failure).rejects.toThrow('cancelled by the test');
    expect(await readdir(workDir)).toEqual([]);
  });
});
