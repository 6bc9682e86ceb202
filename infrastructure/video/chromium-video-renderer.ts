import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { RenderedVideo, VideoDocument, VideoOptions, VideoRenderer, VideoRenderRun } from '../../application/ports/video-renderer.js';
import { outputContentType } from '../../domain/renders/output-formats.js';
import { frameTimeMs, videoFrameCount } from '../../domain/renders/video-timing.js';
import type { BrowserPool } from '../rendering/browser-pool.js';
import type { HostPolicy } from '../rendering/network-guard.js';
import { PoolUnavailableError } from '../rendering/pool-errors.js';
import { probeVideo, startEncoder } from './ffmpeg-encoder.js';
import { createFrameSequencer } from './frame-sequencer.js';
import { startGifEncoder } from './gif-encoder.js';
import { prepareVideoClips } from './video-clips.js';
import { framePageOpeningMs, openFramePage } from './virtual-clock-page.js';

export interface ChromiumVideoRendererOptions {
  readonly pool: BrowserPool;
  readonly hostPolicy: HostPolicy;
  readonly loadTimeoutMs: number;
  /**
   * Pages capturing one video together, each loading the document and taking the next frame
   * whenever it is free. Pages beyond the first only join when the pool has one free at once.
   */
  readonly pagesPerVideo?: number;
  readonly frameQuality?: number;
  readonly frameTimeoutMs?: number;
  readonly x264Preset?: string;
  /** Where ffmpeg writes the file before it is stored. */
  readonly workDir?: string;
}

/**
 * What one frame may take on average before the page's deadline ends the video: far above a
 * 1080p frame's cost on a busy two-core machine, so only a page that stopped drawing reaches it.
 */
const FRAME_BUDGET_MS = 1_000;

/** Captured frames allowed ahead of the encoder, per page: enough to ride out a slow frame. */
const FRAMES_AHEAD_PER_PAGE = 4;

export const createChromiumVideoRenderer = (options: ChromiumVideoRendererOptions): VideoRenderer => {
  const pagesPerVideo = Math.max(1, options.pagesPerVideo ?? 1);
  const pageOptions = {
    hostPolicy: options.hostPolicy,
    loadTimeoutMs: options.loadTimeoutMs,
    frameQuality: options.frameQuality ?? 90,
    frameTimeoutMs: options.frameTimeoutMs ?? 30_000,
    framesOnDemand: options.pool.framesOnDemand,
  };

  return {
    async render(document: VideoDocument, video: VideoOptions, run: VideoRenderRun = {}): Promise<RenderedVideo> {
      const { start, end } = video.segment ?? { start: 0, end: videoFrameCount(document.durationMs, document.fps) };
      const total = end - start;
      // Before any page is taken: decoding holds no browser, and a bad source fails the render early.
      const clips = await prepareVideoClips(
        document.videoClips ?? [],
        { fps: document.fps, firstFrame: start, frames: end, scaleFactor: document.scaleFactor },
        { hostPolicy: options.hostPolicy, workDir: options.workDir, signal: run.signal },
      );
      const outputPath = path.join(options.workDir ?? os.tmpdir(), `video-${randomUUID()}.${video.format}`);
      const encoder = (video.format === 'gif' ? startGifEncoder : startEncoder)({ ...video, fps: document.fps, frameCodec: 'mjpeg', outputPath, x264Preset: options.x264Preset });
      const sequencer = createFrameSequencer({ total, window: pagesPerVideo * FRAMES_AHEAD_PER_PAGE, write: (frame) => encoder.write(frame) });
      const stop = new AbortController();
      const onAbort = () => stop.abort(run.signal?.reason);
      run.signal?.addEventListener('abort', onAbort, { once: true });
      stop.signal.addEventListener('abort', () => sequencer.fail(stop.signal.reason), { once: true });
      let captured = 0;

      const capturePage = async (helper: boolean) => {
        let claimedAny = false;
        try {
          await options.pool.withPage(
            async (page, session) => {
              const framePage = await openFramePage(page, session, document, { ...pageOptions, clips });
              for (let index = await sequencer.claim(); index !== null; index = await sequencer.claim()) {
                claimedAny = true;
                const frame = await framePage.capture(frameTimeMs(start + index, document.fps));
                stop.signal.throwIfAborted();
                sequencer.deliver(index, frame);
                run.onProgress?.({ framesCaptured: ++captured, framesTotal: total });
              }
            },
            {
              tenant: video.tenant,
              deadlineMs: framePageOpeningMs(document, pageOptions) + total * FRAME_BUDGET_MS,
              signal: stop.signal,
              // A helper that would have to queue for a page is not worth waiting for.
              ...(helper ? { queueTimeoutMs: 0 } : {}),
            },
          );
        } catch (error) {
          if (helper && !claimedAny && error instanceof PoolUnavailableError && !stop.signal.aborted) return;
          // One page failing leaves a frame that will never come: everything stops.
          if (!stop.signal.aborted) stop.abort(error);
          throw error;
        }
      };

      try {
        const pages = Array.from({ length: pagesPerVideo }, (_, lane) => capturePage(lane > 0));
        const settled = await Promise.allSettled([...pages, sequencer.finished]);
        if (stop.signal.aborted) throw stop.signal.reason;
        const failed = settled.find((outcome) => outcome.status === 'rejected');
        if (failed) throw failed.reason;
        await encoder.finish();
        const probed = await probeVideo(outputPath);
        return { content: await readFile(outputPath), contentType: outputContentType(video.format), width: probed.width, height: probed.height, frames: total };
      } catch (error) {
        encoder.abort();
        throw error;
      } finally {
        run.signal?.removeEventListener('abort', onAbort);
        await Promise.all([rm(outputPath, { force: true }), clips.dispose()]);
      }
    },
  };
};
