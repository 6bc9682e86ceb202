import { Context } from '@temporalio/activity';
import type { AttemptOutcome, WebhookDelivery } from '../application/webhooks/webhook-delivery.js';
import { translated } from './render.activities.js';

/** How long and how often a webhook is retried; the worker's configuration, read by the workflow once per delivery. */
export interface WebhookRetryPolicy {
  readonly initialIntervalMs: number;
  readonly maximumIntervalMs: number;
  /** The whole window, from the first attempt being scheduled to giving up. */
  readonly retryForMs: number;
  /** 0: unlimited within the window. */
  readonly maximumAttempts: number;
  /** One attempt: the receiver's timeout plus the bookkeeping around it. */
  readonly attemptTimeoutMs: number;
}

export interface DeliveryRef {
  readonly requestId: string;
  readonly deliveryId: string;
}

export const createWebhookActivities = (delivery: WebhookDelivery, policy: WebhookRetryPolicy) => ({
  webhookRetryPolicy: async (): Promise<WebhookRetryPolicy> => policy,
  /** The attempt number comes from Temporal's retry count, so each retry is recorded as the next attempt. */
  deliverWebhook: ({ requestId, deliveryId }: DeliveryRef): Promise<AttemptOutcome> =>
    translated(() => delivery.attempt({ requestId, deliveryId, attempt: Context.current().info.attempt })),
  abandonWebhook: ({ requestId, deliveryId, reason }: DeliveryRef & { reason: string }): Promise<void> =>
    translated(() => delivery.abandon({ requestId, deliveryId, reason })),
});

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
