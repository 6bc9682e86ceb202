import { assertNever } from '../shared/decider.js';
import type { WebhookAbandoned, WebhookDelivered, WebhookDeliveryFailed, WebhookEvent } from './render-events.js';

/**
 * Webhook deliveries of one render, as recorded on its stream. Each attempt is decided here so a
 * retried activity or a replayed workflow records an attempt once and an outcome once.
 */

export interface RecordWebhookFailure {
  readonly type: 'RecordWebhookFailure';
  readonly data: {
    readonly requestId: string;
    readonly deliveryId: string;
    readonly url: string;
    readonly attempt: number;
    readonly statusCode: number | null;
    readonly error: string;
    readonly now: string;
  };
}

export interface RecordWebhookDelivery {
  readonly type: 'RecordWebhookDelivery';
  readonly data: {
    readonly requestId: string;
    readonly deliveryId: string;
    readonly url: string;
    readonly attempt: number;
    readonly statusCode: number;
    readonly now: string;
  };
}

export interface AbandonWebhook {
  readonly type: 'AbandonWebhook';
  readonly data: { readonly requestId: string; readonly deliveryId: string; readonly url: string; readonly reason: string; readonly now: string };
}

export type WebhookCommand = RecordWebhookFailure | RecordWebhookDelivery | AbandonWebhook;

export interface WebhookDeliveryState {
  readonly url: string;
  /** Highest attempt recorded so far. */
  readonly attempts: number;
  readonly failedAttempts: ReadonlySet<number>;
  readonly outcome: 'delivered' | 'abandoned' | null;
}

export type WebhookDeliveries = ReadonlyMap<string, WebhookDeliveryState>;

export const noWebhookDeliveries = (): WebhookDeliveries => new Map();

const delivery = (deliveries: WebhookDeliveries, deliveryId: string, url: string): WebhookDeliveryState =>
  deliveries.get(deliveryId) ?? { url, attempts: 0, failedAttempts: new Set(), outcome: null };

export const evolveWebhookDeliveries = (deliveries: WebhookDeliveries, event: WebhookEvent): WebhookDeliveries => {
  switch (event.type) {
    case 'WebhookDeliveryFailed': {
      const current = delivery(deliveries, event.data.deliveryId, event.data.url);
      return new Map(deliveries).set(event.data.deliveryId, {
        ...current,
        attempts: Math.max(current.attempts, event.data.attempt),
        failedAttempts: new Set(current.failedAttempts).add(event.data.attempt),
      });
    }
    case 'WebhookDelivered': {
      const current = delivery(deliveries, event.data.deliveryId, event.data.url);
      return new Map(deliveries).set(event.data.deliveryId, { ...current, attempts: event.data.attempts, outcome: 'delivered' });
    }
    case 'WebhookAbandoned': {
      const current = delivery(deliveries, event.data.deliveryId, event.data.url);
      return new Map(deliveries).set(event.data.deliveryId, { ...current, outcome: 'abandoned' });
    }
    default:
      return assertNever(event);
  }
};

/** An attempt is recorded once, and never after the delivery has ended either way. */
export const recordWebhookFailure = ({ data }: RecordWebhookFailure, deliveries: WebhookDeliveries): WebhookDeliveryFailed[] => {
  const current = deliveries.get(data.deliveryId);
  if (current && (current.outcome !== null || current.failedAttempts.has(data.attempt))) return [];
  const { now, ...failed } = data;
  return [{ type: 'WebhookDeliveryFailed', data: { ...failed, failedAt: now } }];
};

export const recordWebhookDelivery = ({ data }: RecordWebhookDelivery, deliveries: WebhookDeliveries): WebhookDelivered[] => {
  if (deliveries.get(data.deliveryId)?.outcome) return [];
  const { requestId, deliveryId, url, attempt, statusCode, now } = data;
  return [{ type: 'WebhookDelivered', data: { requestId, deliveryId, url, attempts: attempt, statusCode, deliveredAt: now } }];
};

/**
 * Gives up a delivery that has not ended. The attempts are those recorded: none when no worker ever
 * ran one before the retry window closed.
 */
export const abandonWebhook = ({ data }: AbandonWebhook, deliveries: WebhookDeliveries): WebhookAbandoned[] => {
  const current = deliveries.get(data.deliveryId);
  if (current?.outcome) return [];
  const { requestId, deliveryId, url, reason, now } = data;
  return [{ type: 'WebhookAbandoned', data: { requestId, deliveryId, url, attempts: current?.attempts ?? 0, reason, abandonedAt: now } }];
};
