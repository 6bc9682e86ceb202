import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ffmpeg from 'fluent-ffmpeg';
import type { HTTPRequest, Page } from 'puppeteer-core';
import { DomainError, validationError } from '../../domain/shared/errors.js';
import type { VideoClip } from '../../domain/templates/components/video-clips.js';
import { VIDEO_CLIPS_GLOBAL, type VideoClipManifest } from '../canvas/video-clip-manifest.js';
import type { HostPolicy } from '../rendering/network-guard.js';
import { describeSource, fetchVideoSource } from './video-source-fetch.js';

/*
 * VIDEO components on the virtual clock. A <video> element plays on wall-clock time and shows
 * whatever frame it has loaded, so two renders of one template differed. Instead each distinct
 * source is fetched once per render (through the private-address guard), decoded once by ffmpeg
 * at the video's fps and no larger than it is shown, into JPEG files on disk (the frames a render
 * holds cost disk, not memory; only the frame a page asks for is read). The page's VIDEO elements
 * become images, and its __seekFrame points them at the frame of each instant and waits until it
 * is decoded; the frames are answered from here by the page's request interception, so nothing
 * depends on timing.
 */

export interface VideoClipLimits {
  /** Bytes one source may have. */
  readonly maxSourceBytes: number;
  /** Distinct sources one render may decode. */
  readonly maxSources: number;
  /** Fetching one source, redirects included. */
  readonly fetchTimeoutMs: number;
  /** Decoding one source. */
  readonly decodeTimeoutMs: number;
  /** Decoded frames are at most this wide or high, whatever the component's box. */
  readonly maxFrameSide: number;
  /** Bytes of decoded frames one render may hold on disk, all sources together. */
  readonly maxFrameBytes: number;
}

export const DEFAULT_VIDEO_CLIP_LIMITS: VideoClipLimits = {
  maxSourceBytes: 200 * 1024 * 1024,
  maxSources: 8,
  fetchTimeoutMs: 30_000,
  decodeTimeoutMs: 60_000,
  maxFrameSide: 3840,
  maxFrameBytes: 1024 * 1024 * 1024,
};

/** How often a decode's output is measured against the byte budget. */
const MEASURE_EVERY_MS = 250;

export interface VideoClipsOptions {
  readonly hostPolicy: Pick<HostPolicy, 'assertUrlAllowed' | 'allowedAddress'>;
  readonly limits?: Partial<VideoClipLimits>;
  /** Where the sources and their frames live during the render. */
  readonly workDir?: string;
  readonly signal?: AbortSignal;
}

export interface ClipTiming {
  readonly fps: number;
  /** The first frame of the video this render captures (a segment's start); 0 when absent. */
  readonly firstFrame?: number;
  /** The frame after the last one this render captures: no source needs more. */
  readonly frames: number;
  /** Device pixels per CSS pixel: frames are decoded at the size they are drawn. */
  readonly scaleFactor: number;
}

/** The decoded VIDEO sources of one render. */
export interface VideoClips {
  /**
   * Runs `navigate` (loading the render's document on the page) with the page ready for the clips:
   * the document gets the manifest before its scripts run, and its frame requests are answered.
   */
  loadWith(page: Page, navigate: () => Promise<void>): Promise<void>;
  /** The JPEG a page gets for frame `frame` of the clip of `src` (the nearest one decoded), or null. */
  readFrame(src: string, frame: number): Promise<Buffer | null>;
  /** Stops answering on every page and deletes the frames. */
  dispose(): Promise<void>;
}

/** `.invalid` never resolves (RFC 6761): nothing but this module answers these addresses. */
const FRAMES_HOST = 'http://video-clips.render.invalid/';
/** Above the network guard's refusal of every `.invalid` request, like the template documents. */
const SERVE_PRIORITY = Number.MAX_SAFE_INTEGER;

/*
 * The demuxers a source may use. Playlists (hls, concat, image2 sequences) name further files or
 * URLs, which would let a source read the worker's disk or reach the network past the guard.
 */
const DEMUXERS = 'mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,avi,flv,mpegts,ogg,gif';

/** Scale to the box the clip is drawn in (covering it, never enlarging), or keep its natural size for `objectFit: none`. */
export const clipScaleFilter = (clip: VideoClip, scaleFactor: number, maxSide: number): string => {
  if (clip.naturalSize) return `scale=w='min(iw,${maxSide})':h='min(ih,${maxSide})':force_original_aspect_ratio=decrease`;
  const side = (css: number) => Math.max(1, Math.min(maxSide, Math.ceil(css * scaleFactor)));
  return `scale=w='min(iw,${side(clip.width)})':h='min(ih,${side(clip.height)})':force_original_aspect_ratio=increase`;
};

/** Sizes of the frames in a folder, measured once each: ffmpeg writes them one after the other and never goes back. */
const frameSizes = (frameDir: string) => {
  const sizes = new Map<string, number>();
  let total = 0;
  const step = async (): Promise<number> => {
    for (const name of await readdir(frameDir)) {
      if (sizes.has(name)) continue;
      const { size } = await stat(path.join(frameDir, name));
      sizes.set(name, size);
      total += size;
    }
    return total;
  };
  // One measurement at a time, so no frame is counted twice.
  let last: Promise<number> = Promise.resolve(0);
  return (): Promise<number> => (last = last.catch(() => total).then(step));
};

/** Decodes into frameDir; resolves with the bytes written, which may not pass `byteBudget`. */
/**
 * Decodes video frames [first, timing.frames) into frameDir as `<frame>.jpg`; resolves with the
 * bytes written, which may not pass `byteBudget`.
 */
const decodeClip = (source: string, frameDir: string, clip: VideoClip, first: number, timing: ClipTiming, limits: VideoClipLimits, byteBudget: number, signal: AbortSignal) =>
  new Promise<number>((resolve, reject) => {
    const command = ffmpeg(source)
      .inputOptions(['-protocol_whitelist', 'file', '-format_whitelist', DEMUXERS])
      .videoFilters([
        // Timestamps from 0 whatever the container says, then one frame per video frame: frame f is the instant f / fps.
        'setpts=PTS-STARTPTS',
        `fps=${timing.fps}`,
        // A segment drops the frames before it after the rate conversion, not by seeking the input, so its
        // frames are exactly those a whole render decodes (a seek would realign the rate conversion).
        ...(first > 0 ? [`trim=start_frame=${first}`] : []),
        clipScaleFilter(clip, timing.scaleFactor, limits.maxFrameSide),
      ])
      .outputOptions([
        '-hide_banner', '-loglevel', 'error', '-an', '-sn', '-dn',
        '-frames:v', String(timing.frames - first), '-c:v', 'mjpeg', '-q:v', '3', '-start_number', String(first), '-f', 'image2',
      ])
      .output(path.join(frameDir, '%d.jpg'));
    const measure = frameSizes(frameDir);
    let settled = false;
    const settle = (outcome: Error | number) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(measuring);
      signal.removeEventListener('abort', onAbort);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const stop = (error: Error) => {
      command.kill('SIGKILL');
      settle(error);
    };
    const onAbort = () => stop(validationError(`the VIDEO source ${describeSource(clip.src)} could not be decoded in time`));
    const tooLarge = () => validationError(`the VIDEO source ${describeSource(clip.src)} decodes to more than ${limits.maxFrameBytes} bytes of frames`);
    const timer = setTimeout(onAbort, limits.decodeTimeoutMs);
    // The frames' size depends on the source's content as much as on its box, so it is measured as they come.
    const measuring = setInterval(() => {
      measure().then((bytes) => (bytes > byteBudget ? stop(tooLarge()) : undefined), () => undefined);
    }, MEASURE_EVERY_MS);
    signal.addEventListener('abort', onAbort, { once: true });
    command.on('end', () => {
      measure().then((bytes) => settle(bytes > byteBudget ? tooLarge() : bytes), (error: Error) => settle(error));
    });
    command.on('error', (error: Error, _stdout: string | null, stderr: string | null) => {
      // ffmpeg's own words say what is wrong with the file; its paths are ours and stay out of the message.
      const reason = (stderr || error.message).split('\n').map((line) => line.trim()).filter(Boolean).at(-1)?.replaceAll(source, 'source') ?? 'unknown error';
      settle(validationError(`the VIDEO source ${describeSource(clip.src)} could not be decoded: ${reason}`));
    });
    command.run();
  });

/** The frame numbers decoded into frameDir, in order. */
const framesIn = async (frameDir: string) =>
  (await readdir(frameDir))
    .filter((name) => name.endsWith('.jpg'))
    .map((name) => Number(name.slice(0, -'.jpg'.length)))
    .sort((a, b) => a - b);

const noClips: VideoClips = { loadWith: (_page, navigate) => navigate(), readFrame: async () => null, dispose: async () => {} };

/**
 * Fetches and decodes every clip, one after the other (a render's CPU is the worker's, and bounded
 * work one at a time keeps a many-source template from taking more). Rejects with a validation
 * error naming the source when one cannot be fetched or decoded, and leaves nothing behind.
 */
export const prepareVideoClips = async (clips: readonly VideoClip[], timing: ClipTiming, options: VideoClipsOptions): Promise<VideoClips> => {
  if (clips.length === 0) return noClips;
  const limits = { ...DEFAULT_VIDEO_CLIP_LIMITS, ...options.limits };
  if (clips.length > limits.maxSources) throw validationError(`a video may show at most ${limits.maxSources} distinct VIDEO sources, not ${clips.length}`);
  const dir = await mkdtemp(path.join(options.workDir ?? os.tmpdir(), 'video-clips-'));
  const first = Math.max(0, Math.min(timing.firstFrame ?? 0, timing.frames - 1));
  const signal = options.signal ?? new AbortController().signal;
  /** Per clip, the frame after the last one decoded: frames [first, end) are on disk. */
  const ends: number[] = [];
  let frameBytes = 0;
  try {
    for (const [id, clip] of clips.entries()) {
      const source = path.join(dir, `source-${id}`);
      const frameDir = path.join(dir, String(id));
      await mkdir(frameDir);
      const fetchSignal = AbortSignal.any([AbortSignal.timeout(limits.fetchTimeoutMs), signal]);
      await fetchVideoSource(clip.src, source, { hostPolicy: options.hostPolicy, maxBytes: limits.maxSourceBytes, signal: fetchSignal });
      frameBytes += await decodeClip(source, frameDir, clip, first, timing, limits, limits.maxFrameBytes - frameBytes, signal);
      let frames = await framesIn(frameDir);
      if (frames.length === 0 && first > 0) {
        // The source ended before this segment starts: it holds its last frame, found by decoding it whole.
        frameBytes += await decodeClip(source, frameDir, clip, 0, timing, limits, limits.maxFrameBytes - frameBytes, signal);
        const last = (await framesIn(frameDir)).at(-1);
        if (last !== undefined) await rename(path.join(frameDir, `${last}.jpg`), path.join(frameDir, `${first}.jpg`));
        frames = last === undefined ? [] : [first];
      }
      await rm(source, { force: true });
      if (frames.length === 0) throw validationError(`the VIDEO source ${describeSource(clip.src)} has no video frames`);
      ends.push(first + frames.length);
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    if (options.signal?.aborted) throw options.signal.reason;
    throw error instanceof DomainError ? error : validationError(`the VIDEO sources could not be prepared: ${(error as Error).message}`);
  }

  // A token per render: a page that outlives this render never gets another render's frames.
  const base = `${FRAMES_HOST}${randomUUID()}/`;
  const manifest: VideoClipManifest = {
    base,
    fps: timing.fps,
    clips: Object.fromEntries(clips.map((clip, id) => [clip.src, { id, frames: ends[id] ?? 0 }])),
  };
  // Frames outside [first, end) are the nearest one there: the page asks for frame 0 when it loads.
  const readFrame = async (id: number, frame: number): Promise<Buffer | null> => {
    const end = ends[id];
    if (end === undefined) return null;
    return readFile(path.join(dir, String(id), `${Math.max(first, Math.min(frame, end - 1))}.jpg`)).catch(() => null);
  };
  const answer = async (request: HTTPRequest) => {
    const match = /^(\d+)\/(\d+)\.jpg$/.exec(request.url().slice(base.length));
    const body = match ? await readFrame(Number(match[1]), Number(match[2])) : null;
    await request.respond(body === null ? { status: 404 } : { status: 200, contentType: 'image/jpeg', body }, SERVE_PRIORITY);
  };
  const onRequest = (request: HTTPRequest) => (request.url().startsWith(base) ? answer(request).catch(() => {}) : undefined);
  const pages = new Set<Page>();

  return {
    async loadWith(page, navigate) {
      if (!pages.has(page)) {
        pages.add(page);
        page.on('request', onRequest);
      }
      // Only for this navigation: the page is reused by later renders, which must not see it.
      const { identifier } = await page.evaluateOnNewDocument(`Object.defineProperty(window, '${VIDEO_CLIPS_GLOBAL}', { value: Object.freeze(${JSON.stringify(manifest)}) });`);
      try {
        await navigate();
      } finally {
        await page.removeScriptToEvaluateOnNewDocument(identifier).catch(() => {});
      }
    },
    readFrame: async (src, frame) => {
      const clip = Object.hasOwn(manifest.clips, src) ? manifest.clips[src] : undefined;
      return clip === undefined ? null : readFrame(clip.id, frame);
    },
    async dispose() {
      for (const page of pages) page.off('request', onRequest);
      pages.clear();
      await rm(dir, { recursive: true, force: true });
    },
  };
};
