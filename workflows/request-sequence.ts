import type { FailedOutcome, RenderOutcome } from '../application/ports/render-orchestrator.js';
import type { StoredFile } from '../domain/renders/render-events.js';
import { failedOutcomeOf } from './failures.js';

/** The steps of a request that produces one file, each done by an activity (or, in unit tests, by the fake orchestrator's stubs). */
export interface SequenceSteps {
  charge(): Promise<void>;
  /** Makes the file and stores it. */
  produce(): Promise<StoredFile>;
  refund(): Promise<void>;
  /** Each returns the log position of what it recorded. */
  recordFailure(failure: FailedOutcome): Promise<number | null>;
  recordCompletion(file: StoredFile): Promise<number | null>;
  /** Tells the request's webhook how it ended, where it has one. */
  tellWebhook(outcome: RenderOutcome['status']): Promise<void>;
}

/**
 * The life of any request that produces one file (a render, a capture, a video): charge, produce
 * and store, record; refund when the file cannot be made; then tell the webhook. A failure ends
 * the request as its type says (failures.ts): the request's fault, no credits, no room, or failed.
 * Free of Temporal's workflow API, so that the fake orchestrator of unit tests runs this very
 * sequence over its stubbed steps.
 */
export async function runRequestSequence(steps: SequenceSteps): Promise<RenderOutcome> {
  try {
    await steps.charge();
  } catch (error) {
    const failed = failedOutcomeOf(error);
    const position = await steps.recordFailure(failed);
    await steps.tellWebhook('failed');
    return { ...failed, position };
  }

  let file;
  try {
    file = await steps.produce();
  } catch (error) {
    const failed = failedOutcomeOf(error);
    await steps.refund();
    const position = await steps.recordFailure(failed);
    await steps.tellWebhook('failed');
    return { ...failed, position };
  }
  const position = await steps.recordCompletion(file);

  await steps.tellWebhook('done');
  // The file as the activity stored it: a caller serves it from here rather than predicting where it went.
  return { status: 'done', file, position };
}
