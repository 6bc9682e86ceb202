import type { CaptureSteps } from '../application/captures/capture-steps.js';
import type { StoredFile } from '../domain/renders/render-events.js';
import { heartbeating, type RenderRef } from './render.activities.js';
import { translated } from './failures.js';

/** Charging, recording and the webhook of a capture are the render activities; only producing the file differs. */
export const createCaptureActivities = (steps: CaptureSteps) => ({
  produceCapture: ({ requestId }: RenderRef): Promise<StoredFile> => heartbeating(() => translated(() => steps.produce(requestId))),
  /** As a local activity, which cannot heartbeat: the workflow task's own timeout notices a lost worker. */
  produceCaptureNow: ({ requestId }: RenderRef): Promise<StoredFile> => translated(() => steps.produce(requestId)),
});

export type CaptureActivities = ReturnType<typeof createCaptureActivities>;
