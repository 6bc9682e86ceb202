import { Context } from '@temporalio/activity';
import type { AttemptOutcome, WebhookDelivery } from '../application/webhooks/deliver-webhook/deliver-webhook.js';
import type { WebhookRetryPolicy } from '../application/webhooks/deliver-webhook/retry-policy.js';
import { translated } from './failures.js';

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
