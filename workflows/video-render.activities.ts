import { Context } from '@temporalio/activity';
import type { VideoSteps } from '../application/renders/video-steps.js';
import type { StoredFile } from '../domain/renders/render-events.js';
import { heartbeating, translated, type RenderRef } from './render.activities.js';

export const createVideoRenderActivities = (steps: VideoSteps) => ({
  /**
   * Heartbeats while it captures and encodes, so a lost worker is noticed within the heartbeat
   * timeout; a cancelled attempt (its heartbeat timed out while this worker lived) stops its pages
   * and ffmpeg instead of finishing a video nobody waits for.
   */
  produceVideo: ({ requestId }: RenderRef): Promise<StoredFile> =>
    heartbeating(() => translated(() => steps.produce(requestId, Context.current().cancellationSignal))),
});

export type VideoRenderActivities = ReturnType<typeof createVideoRenderActivities>;
