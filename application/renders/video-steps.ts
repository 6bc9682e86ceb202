import type { StoredFile } from '../../domain/renders/render-events.js';
import { DomainError } from '../../domain/shared/errors.js';
import { isVideoFormat } from '../../domain/templates/template-settings.js';
import type { FileStorage } from '../ports/file-storage.js';
import type { Metrics } from '../ports/metrics.js';
import type { VideoProgress, VideoRenderer } from '../ports/video-renderer.js';
import { recordRenderProgress } from '../requests/record-render-progress.js';
import type { CommandDeps } from '../shared/command-handler.js';
import { measuredRender } from './render-metrics.js';
import { storageKeyOf, type RenderSteps } from './render-steps.js';

export interface VideoStepsDeps extends CommandDeps {
  readonly storage: FileStorage;
  readonly videos: VideoRenderer;
  readonly renders: Pick<RenderSteps, 'loadRequest' | 'templateAt' | 'pageOf'>;
  readonly metrics: Metrics;
}

export type VideoSteps = ReturnType<typeof createVideoSteps>;

/** Progress is recorded each tenth of the way: enough to follow, few events even for 900 frames. */
const PROGRESS_STEPS = 10;

/**
 * Records progress as frames come in without holding the capture up: appends run one after the
 * other in the background. Progress only informs the client, so a failed append fails nothing.
 */
const progressRecorder = (record: (framesDone: number, framesTotal: number) => Promise<unknown>) => {
  let nextStep = 1;
  let appends: Promise<unknown> = Promise.resolve();
  return {
    onProgress({ framesCaptured, framesTotal }: VideoProgress) {
      if (framesCaptured * PROGRESS_STEPS < nextStep * framesTotal) return;
      nextStep = Math.floor((framesCaptured * PROGRESS_STEPS) / framesTotal) + 1;
      appends = appends.then(() => record(framesCaptured, framesTotal)).catch(() => undefined);
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
  return {
    /** Captures the pinned canvas-html template frame by frame, encodes it and stores the file. */
    async produce(requestId: string, signal?: AbortSignal): Promise<StoredFile> {
      const request = await deps.renders.loadRequest(requestId);
      const { spec } = request;
      if (!isVideoFormat(spec.format) || spec.duration === null || spec.fps === null) {
        throw new DomainError('validation', `Request ${requestId} is not a video render`);
      }
      const { format, fps, duration } = spec;
      return measuredRender(deps.metrics, { kind: 'video', format }, async () => {
        const template = await deps.renders.templateAt(spec.templateId, spec.templateRevision);
        const page = await deps.renders.pageOf(template, spec.data, { width: spec.width, height: spec.height, scaleFactor: spec.scaleFactor, waitTime: spec.waitTime });
        const progress = progressRecorder((framesDone, framesTotal) => recordRenderProgress(deps, request, framesDone, framesTotal));
        try {
          const video = await deps.videos.render(
            { ...page, fps, durationMs: duration },
            { tenant: request.orgId, format, quality: spec.quality, crop: spec.crop },
            { onProgress: progress.onProgress, signal },
          );
          const storageKey = storageKeyOf(request);
          await deps.storage.put(storageKey, video.content, video.contentType);
          return { storageKey, fileName: spec.fileName, contentType: video.contentType, bytes: video.content.length, width: video.width, height: video.height };
        } finally {
          // Nothing of this attempt may land after the workflow has recorded the outcome.
          await progress.settled();
        }
      });
    },
  };
};
