import type { WebhookEvent } from '../../domain/renders/render-events.js';
import type { WebhookDeliveryView } from '../ports/read-models.js';

/**
 * How webhook events shape the delivery state a result shows. The results projection and the
 * result service's stream fold both use these, so the two agree.
 */

const pending = (url: string): WebhookDeliveryView => ({ url, status: 'pending', attempts: 0, lastStatusCode: null, lastError: null, deliveredAt: null });

export const requestedWebhook = (webhookUrl: string | null): WebhookDeliveryView | null => (webhookUrl === null ? null : pending(webhookUrl));

export const webhookAfter = (webhook: WebhookDeliveryView | null, event: WebhookEvent): WebhookDeliveryView => {
  const base = webhook ?? pending(event.data.url);
  switch (event.type) {
    case 'WebhookDeliveryFailed':
      // A late failure event never undoes an outcome; attempts only grow.
      if (base.status === 'delivered' || base.status === 'failed') return base;
      return {
        ...base,
        status: 'retrying',
        attempts: Math.max(base.attempts, event.data.attempt),
        lastStatusCode: event.data.statusCode,
        lastError: event.data.error,
      };
    case 'WebhookDelivered':
      return { ...base, status: 'delivered', attempts: event.data.attempts, lastStatusCode: event.data.statusCode, lastError: null, deliveredAt: event.data.deliveredAt };
    case 'WebhookAbandoned':
      return { ...base, status: 'failed', attempts: Math.max(base.attempts, event.data.attempts), lastError: base.lastError ?? event.data.reason };
  }
};
