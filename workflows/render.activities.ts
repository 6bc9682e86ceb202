import { Context } from '@temporalio/activity';
import type { RenderSteps } from '../application/renders/render-steps.js';
import type { StoredFile } from '../domain/renders/render-events.js';
import type { FailedOutcome } from '../application/ports/render-orchestrator.js';
import { translated } from './failures.js';

const HEARTBEAT_EVERY_MS = 2_000;

/**
 * Long steps heartbeat so that a worker that dies mid-render is noticed within the workflow's
 * heartbeat timeout and the step is retried on another worker, instead of after startToClose.
 */
export const heartbeating = async <T>(step: () => Promise<T>): Promise<T> => {
  const context = Context.current();
  const timer = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await step();
  } finally {
    clearInterval(timer);
  }
};

export interface RenderRef {
  readonly requestId: string;
}

export const createRenderActivities = (steps: RenderSteps) => ({
  chargeCredits: ({ requestId }: RenderRef) => translated(() => steps.charge(requestId)),
  refundCredits: ({ requestId }: RenderRef) => translated(() => steps.refund(requestId)),
  produceRender: ({ requestId }: RenderRef): Promise<StoredFile> => heartbeating(() => translated(() => steps.produce(requestId))),
  /**
   * As a local activity, which cannot heartbeat: the workflow task's own timeout notices a lost
   * worker. It records the completion too, so the client that waits hears of it a step earlier.
   */
  produceRenderNow: ({ requestId }: RenderRef): Promise<StoredFile> => translated(() => steps.produceNow(requestId)),
  recordCompletion: ({ requestId, file }: RenderRef & { file: StoredFile }) => translated(() => steps.complete(requestId, file)),
  /** The whole failed outcome: a caller waiting in this process is told it as Temporal would tell it. */
  recordFailure: ({ requestId, ...failure }: RenderRef & FailedOutcome) => translated(() => steps.fail(requestId, failure)),
});

export type RenderActivities = ReturnType<typeof createRenderActivities>;
