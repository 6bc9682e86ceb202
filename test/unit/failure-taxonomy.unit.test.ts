import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { DomainError, UnavailableError } from '../../domain/shared/errors.js';
import { inTaxonomy } from '../../infrastructure/temporal/temporal-render-orchestrator.js';
import { failedOutcomeOf, translated } from '../../workflows/failures.js';

/** What the workflow catches when an activity failed with `error`, as Temporal wraps it. */
const caughtInWorkflow = async (error: Error) => {
  const failure = await translated(() => Promise.reject(error)).catch((thrown: unknown) => thrown);
  return new ActivityFailure('Activity task failed', 'produceRender', 'activity-1', RetryState.NON_RETRYABLE_FAILURE, 'worker-1', failure as Error);
};

describe('the failure taxonomy across Temporal', () => {
  it.each([
    [new DomainError('validation', 'The page at https://pages.example/ leads to 10.0.0.1'), 'validation'],
    [new DomainError('payment_required', 'Not enough credits'), 'payment_required'],
    [new DomainError('failed', 'The page did not settle within 30000 ms'), 'failed'],
    // Not a failure of the request's work as the caller knows it: the work failed.
    [new DomainError('not_found', 'Account not found'), 'failed'],
    [new Error('Protocol error: Target closed'), 'failed'],
  ] as const)('reads %s back as %s, with its message as the reason', async (error, code) => {
    expect(failedOutcomeOf(await caughtInWorkflow(error))).toEqual({ status: 'failed', reason: error.message, code });
  });

  it('carries no room with its Retry-After, and the default when the refusal had no estimate', async () => {
    expect(failedOutcomeOf(await caughtInWorkflow(new UnavailableError('The render queue is full', 12)))).toEqual({
      status: 'failed',
      reason: 'The render queue is full',
      code: 'unavailable',
      retryAfterSeconds: 12,
    });
    expect(failedOutcomeOf(await caughtInWorkflow(new DomainError('unavailable', 'No browser')))).toMatchObject({ code: 'unavailable', retryAfterSeconds: 5 });
  });

  it('makes refusals final and leaves the rest retryable', async () => {
    const final = async (error: Error) => ((await caughtInWorkflow(error)).cause as ApplicationFailure).nonRetryable;
    expect(await final(new DomainError('validation', 'bad'))).toBe(true);
    expect(await final(new DomainError('payment_required', 'none left'))).toBe(true);
    expect(await final(new DomainError('failed', 'crashed'))).toBe(false);
    expect(await final(new DomainError('unavailable', 'full'))).toBe(false);
  });

  it('reads outcomes of workers released before the taxonomy in its terms', () => {
    const earlier = (code: string) => inTaxonomy({ status: 'failed', reason: 'r', code } as never);
    expect(earlier('rejected')).toMatchObject({ code: 'validation' });
    expect(earlier('render_failed')).toMatchObject({ code: 'failed' });
    expect(earlier('payment_required')).toMatchObject({ code: 'payment_required' });
  });
});
