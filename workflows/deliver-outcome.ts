import { ActivityFailure, log, proxyActivities, proxyLocalActivities, uuid4 } from '@temporalio/workflow';
import type { WebhookActivities } from './webhook.activities.js';
import { BOOKKEEPING } from './activity-options.js';

const bookkeeping = proxyLocalActivities<WebhookActivities>(BOOKKEEPING);

const reasonOf = (error: unknown): string => {
  const cause = error instanceof ActivityFailure ? (error.cause ?? error) : error;
  return cause instanceof Error ? cause.message : 'unknown failure';
};

/**
 * Delivers a finished request's outcome to its webhookUrl: one call from any workflow whose request
 * lives on a `render-<requestId>` stream (renders, videos, captures), once the outcome is recorded.
 *
 * Each attempt is an activity; Temporal retries it with exponential backoff (x2, from the worker's
 * WEBHOOK_RETRY_INITIAL_MS up to WEBHOOK_RETRY_MAX_INTERVAL_MS) for WEBHOOK_RETRY_FOR_MS (24 h by
 * default), on whichever worker is alive, so a worker restart loses nothing. When the window closes
 * the delivery is recorded as abandoned. Never throws: the outcome stands whatever the receiver does.
 */
export async function deliverOutcome(requestId: string): Promise<void> {
  // Deterministic in a workflow: the same id on replay, and on every retry of this delivery.
  const deliveryId = uuid4();
  try {
    const policy = await bookkeeping.webhookRetryPolicy();
    const attempts = proxyActivities<WebhookActivities>({
      startToCloseTimeout: policy.attemptTimeoutMs,
      scheduleToCloseTimeout: policy.retryForMs,
      retry: {
        initialInterval: policy.initialIntervalMs,
        backoffCoefficient: 2,
        maximumInterval: policy.maximumIntervalMs,
        // Temporal's "no limit" is leaving the field out.
        ...(policy.maximumAttempts > 0 ? { maximumAttempts: policy.maximumAttempts } : {}),
      },
    });
    await attempts.deliverWebhook({ requestId, deliveryId });
  } catch (failure) {
    try {
      await bookkeeping.abandonWebhook({ requestId, deliveryId, reason: reasonOf(failure) });
    } catch (error) {
      log.warn('could not record an abandoned webhook delivery', { requestId, deliveryId, error: reasonOf(error) });
    }
  }
}
