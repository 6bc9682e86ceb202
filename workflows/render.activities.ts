import { Context } from '@temporalio/activity';
import type { RenderSteps } from '../application/renders/render-steps.js';
import type { StoredFile } from '../domain/renders/render-events.js';
import type { FailedOutcome } from '../application/ports/render-orchestrator.js';
import { isUnreachableDependency } from '../application/shared/unreachable-dependency.js';
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

/** How long a render nobody waits for outlasts its backing services' outage, within its activity's bound. */
const OUTAGE_OUTLASTED_MS = 90_000;
const OUTAGE_RETRY_EVERY_MS = 2_000;

/**
 * A render is allowed few attempts, since one that fails as a render (a page that crashes its
 * browser) fails again; a database or storage that is briefly out of reach is not the render's
 * failure, and would use those attempts up within seconds. So the step waits such an outage out
 * here, heartbeating, and goes on once the service is back.
 */
const outlastingOutages = async <T>(step: () => Promise<T>): Promise<T> => {
  const context = Context.current();
  const giveUpAt = Date.now() + OUTAGE_OUTLASTED_MS;
  for (;;) {
    try {
      return await step();
    } catch (error) {
      if (!isUnreachableDependency(error) || Date.now() >= giveUpAt) throw error;
      context.log.warn('a service the render needs is out of reach; trying again', { error: String(error) });
      await context.sleep(OUTAGE_RETRY_EVERY_MS);
    }
  }
};

export interface RenderRef {
  readonly requestId: string;
}

export const createRenderActivities = (steps: RenderSteps) => ({
  chargeCredits: ({ requestId }: RenderRef) => translated(() => steps.charge(requestId)),
  refundCredits: ({ requestId }: RenderRef) => translated(() => steps.refund(requestId)),
  produceRender: ({ requestId }: RenderRef): Promise<StoredFile> => heartbeating(() => outlastingOutages(() => translated(() => steps.produce(requestId)))),
  /**
   * As a local activity, which cannot heartbeat: the workflow task's own timeout notices a lost
   * worker. It takes the render begun ahead for the waiting client, when this process began one.
   */
  produceRenderNow: ({ requestId }: RenderRef): Promise<StoredFile> => translated(() => steps.produceNow(requestId)),
  recordCompletion: ({ requestId, file }: RenderRef & { file: StoredFile }) => translated(() => steps.complete(requestId, file)),
  /** The whole failed outcome: a caller waiting in this process is told it as Temporal would tell it. */
  recordFailure: ({ requestId, ...failure }: RenderRef & FailedOutcome) => translated(() => steps.fail(requestId, failure)),
});

export type RenderActivities = ReturnType<typeof createRenderActivities>;
