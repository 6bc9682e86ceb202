import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import type { FailedOutcome } from '../application/ports/render-orchestrator.js';
import { DEFAULT_RETRY_AFTER_SECONDS, DomainError, failureCodeOf, retryAfterSecondsOf, type ErrorCode } from '../domain/shared/errors.js';

/*
 * The one crossing of failures through Temporal, both ways: an activity's domain error becomes an
 * ApplicationFailure whose type is its code, and the workflow reads the code back from that type.
 * Anything else an activity throws (a crash, a timeout) stays retryable and reads back as `failed`.
 */

/** Retrying these cannot help: the request itself is the problem. */
const FINAL: ReadonlySet<ErrorCode> = new Set(['validation', 'payment_required', 'forbidden', 'not_found']);

/** Runs an activity's step; a domain error leaves it as a typed failure, carrying its Retry-After as the last detail. */
export const translated = async <T>(step: () => Promise<T>): Promise<T> => {
  try {
    return await step();
  } catch (error) {
    if (error instanceof DomainError) {
      const details: unknown[] = [...error.details];
      if (error.code === 'unavailable') details.push({ retryAfterSeconds: retryAfterSecondsOf(error) });
      throw ApplicationFailure.create({ type: error.code, message: error.message, details, nonRetryable: FINAL.has(error.code) });
    }
    throw error;
  }
};

/** How a step that threw ends the request, in the taxonomy of the orchestrator port. */
export const failedOutcomeOf = (error: unknown): FailedOutcome => {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (!(cause instanceof ApplicationFailure)) return { status: 'failed', reason: cause instanceof Error ? cause.message : 'unknown failure', code: 'failed' };
  const reason = cause.message;
  const code = failureCodeOf(cause.type ?? undefined);
  if (code !== 'unavailable') return { status: 'failed', reason, code };
  const hint = cause.details?.at(-1) as { retryAfterSeconds?: unknown } | undefined;
  const retryAfterSeconds = typeof hint?.retryAfterSeconds === 'number' ? hint.retryAfterSeconds : DEFAULT_RETRY_AFTER_SECONDS;
  return { status: 'failed', reason, code, retryAfterSeconds };
};
