import { Context } from '@temporalio/activity';
import type { VideoPlan, VideoSteps } from '../application/renders/video-steps.js';
import type { StoredFile } from '../domain/renders/render-events.js';
import type { VideoSegment } from '../domain/renders/video-segments.js';
import { heartbeating, type RenderRef } from './render.activities.js';
import { translated } from './failures.js';

export interface SegmentRef extends RenderRef {
  readonly index: number;
  readonly segment: VideoSegment;
}

export const createVideoRenderActivities = (steps: VideoSteps) => ({
  planVideo: ({ requestId }: RenderRef): Promise<VideoPlan> => translated(() => steps.plan(requestId)),
  /**
   * Heartbeats while it captures and encodes, so a lost worker is noticed within the heartbeat
   * timeout; a cancelled attempt (its heartbeat timed out while this worker lived) stops its pages
   * and ffmpeg instead of finishing a video nobody waits for.
   */
  produceVideo: ({ requestId }: RenderRef): Promise<StoredFile> =>
    heartbeating(() => translated(() => steps.produce(requestId, Context.current().cancellationSignal))),
  /** One segment of a long video, heartbeating and cancellable like a whole one. */
  produceVideoSegment: ({ requestId, index, segment }: SegmentRef): Promise<void> =>
    heartbeating(() => translated(() => steps.produceSegment(requestId, index, segment, Context.current().cancellationSignal))),
  joinVideoSegments: ({ requestId, segments }: RenderRef & { segments: number }): Promise<StoredFile> =>
    heartbeating(() => translated(() => steps.joinSegments(requestId, segments))),
  discardVideoSegments: ({ requestId, segments }: RenderRef & { segments: number }): Promise<void> => translated(() => steps.discardSegments(requestId, segments)),
});

export type VideoRenderActivities = ReturnType<typeof createVideoRenderActivities>;
