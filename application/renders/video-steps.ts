import type { StoredFile } from '../../domain/renders/render-events.js';
import { planVideoSegments, type VideoSegment } from '../../domain/renders/video-segments.js';
import { videoFrameCount } from '../../domain/renders/video-timing.js';
import { DomainError } from '../../domain/shared/errors.js';
import { isVideoFormat } from '../../domain/templates/template-settings.js';
import type { FileStorage } from '../ports/file-storage.js';
import type { Metrics } from '../ports/metrics.js';
import type { VideoJoiner, VideoProgress, VideoRenderer } from '../ports/video-renderer.js';
import { recordRenderProgress } from './record-render-progress/record-render-progress.js';
import type { CommandDeps } from '../shared/command-handler.js';
import { measuredRender } from './render-metrics.js';
import { storageKeyOf, type RenderSteps } from './render-steps.js';
import { withTestWatermark } from './test-watermark.js';

export interface VideoStepsDeps extends CommandDeps {
  readonly storage: FileStorage;
  readonly videos: VideoRenderer;
  readonly joiner: VideoJoiner;
  /** Seconds of video per segment when a long video is split across workers; 0 keeps every video whole. */
  readonly segmentSeconds: number;
  readonly renders: Pick<RenderSteps, 'loadRequest' | 'templateAt' | 'pageOf'>;
  readonly metrics: Metrics;
}

export type VideoSteps = ReturnType<typeof createVideoSteps>;

export interface VideoPlan {
  readonly framesTotal: number;
  readonly segments: readonly VideoSegment[];
}

/** Where a segment waits for the join: beside the result, in storage every worker shares. */
const segmentKeyOf = (resultKey: string, index: number, format: string) => `${resultKey}.segments/${index}.${format}`;

/** Progress is recorded each tenth of the video: enough to follow, few events even for 900 frames. */
const PROGRESS_STEPS = 10;

/**
 * Records progress as frames come in without holding the capture up: appends run one after the
 * other in the background. Progress only informs the client, so a failed append fails nothing.
 * Steps are tenths of the whole video, so a segment records its share of them, and its last frame.
 */
const progressRecorder = (videoFrames: number, record: (framesDone: number) => Promise<unknown>) => {
  let nextStep = 1;
  let appends: Promise<unknown> = Promise.resolve();
  return {
    onProgress({ framesCaptured, framesTotal }: VideoProgress) {
      if (framesCaptured * PROGRESS_STEPS < nextStep * videoFrames && framesCaptured < framesTotal) return;
      nextStep = Math.floor((framesCaptured * PROGRESS_STEPS) / videoFrames) + 1;
      appends = appends.then(() => record(framesCaptured)).catch(() => undefined);
    },
    settled: () => appends,
  };
};

/**
 * The video part of a render workflow. Producing is safe to retry: a new attempt captures from the
 * first frame again and stores under the same key, and its progress is recorded only once it passes
 * what an earlier attempt reached (the decider drops anything that is not ahead).
 */
export const createVideoSteps = (deps: VideoStepsDeps) => {
  const loadVideoRequest = async (requestId: string) => {
    const request = await deps.renders.loadRequest(requestId);
    const { spec } = request;
    if (!isVideoFormat(spec.format) || spec.duration === null || spec.fps === null) {
      throw new DomainError('validation', `Request ${requestId} is not a video render`);
    }
    return { request, spec, format: spec.format, fps: spec.fps, duration: spec.duration };
  };

  /**
   * Captures frames of the pinned canvas-html template (all, or one segment's) and encodes them,
   * recording progress as it goes: a segment's frames count towards the video's.
   */
  const renderFrames = async (requestId: string, part: { index: number; segment: VideoSegment } | undefined, signal: AbortSignal | undefined) => {
    const { request, spec, format, fps, duration } = await loadVideoRequest(requestId);
    const template = await deps.renders.templateAt(spec.templateId, spec.templateRevision);
    const drawn = await deps.renders.pageOf(template, spec.data, { width: spec.width, height: spec.height, scaleFactor: spec.scaleFactor, waitTime: spec.waitTime });
    const page = request.test ? withTestWatermark(drawn) : drawn;
    const videoFrames = videoFrameCount(duration, fps);
    const progress = progressRecorder(videoFrames, (framesDone) => recordRenderProgress(deps, request, framesDone, videoFrames, part?.index));
    try {
      const video = await deps.videos.render(
        { ...page, fps, durationMs: duration },
        { tenant: request.orgId, format, quality: spec.quality, crop: spec.crop, ...(part ? { segment: part.segment } : {}) },
        { onProgress: progress.onProgress, signal },
      );
      return { request, spec, format, video };
    } finally {
      // Nothing of this attempt may land after the workflow has recorded the outcome.
      await progress.settled();
    }
  };

  const store = async (request: Awaited<ReturnType<typeof loadVideoRequest>>['request'], file: { content: Buffer; contentType: string; width: number; height: number }): Promise<StoredFile> => {
    const storageKey = storageKeyOf(request);
    await deps.storage.put(storageKey, file.content, file.contentType);
    return { storageKey, fileName: request.spec.fileName, contentType: file.contentType, bytes: file.content.length, width: file.width, height: file.height };
  };

  return {
    /** The video's frames, and the segments they are rendered in: one when the video is short or segmenting is off. */
    async plan(requestId: string): Promise<VideoPlan> {
      const { format, fps, duration } = await loadVideoRequest(requestId);
      const framesTotal = videoFrameCount(duration, fps);
      // A GIF's palette is chosen over all of its frames at once, so it is never cut.
      const framesPerSegment = format === 'gif' ? 0 : Math.round(deps.segmentSeconds * fps);
      return { framesTotal, segments: planVideoSegments(framesTotal, framesPerSegment) };
    },

    /** Captures every frame, encodes them and stores the file. */
    async produce(requestId: string, signal?: AbortSignal): Promise<StoredFile> {
      const { format } = await loadVideoRequest(requestId);
      return measuredRender(deps.metrics, { kind: 'video', format }, async () => {
        const { request, video } = await renderFrames(requestId, undefined, signal);
        return store(request, video);
      });
    },

    /**
     * Renders one segment into a file of its own, stored where any worker can join it. Retrying
     * renders the segment again and replaces the file; the other segments are untouched.
     */
    async produceSegment(requestId: string, index: number, segment: VideoSegment, signal?: AbortSignal): Promise<void> {
      const { format } = await loadVideoRequest(requestId);
      await measuredRender(deps.metrics, { kind: 'video_segment', format }, async () => {
        const { request, video } = await renderFrames(requestId, { index, segment }, signal);
        await deps.storage.put(segmentKeyOf(storageKeyOf(request), index, format), video.content, video.contentType);
      });
    },

    /** Joins the stored segments into the video, stores it and deletes the segments. */
    async joinSegments(requestId: string, segments: number): Promise<StoredFile> {
      const { request, format } = await loadVideoRequest(requestId);
      return measuredRender(deps.metrics, { kind: 'video', format }, async () => {
        const resultKey = storageKeyOf(request);
        const keys = Array.from({ length: segments }, (_, index) => segmentKeyOf(resultKey, index, format));
        const contents = await Promise.all(
          keys.map(async (key) => {
            const content = await deps.storage.get(key);
            // Not the request's fault, and storage may yet catch up: a plain error is retried.
            if (!content) throw new Error(`The video segment ${key} is missing`);
            return content;
          }),
        );
        const file = await store(request, await deps.joiner.join(contents, format));
        await Promise.all(keys.map((key) => deps.storage.delete(key)));
        return file;
      });
    },

    /** Deletes whatever segments a failed video left behind. */
    async discardSegments(requestId: string, segments: number): Promise<void> {
      const { request, format } = await loadVideoRequest(requestId);
      const resultKey = storageKeyOf(request);
      await Promise.all(Array.from({ length: segments }, (_, index) => deps.storage.delete(segmentKeyOf(resultKey, index, format))));
    },
  };
};
