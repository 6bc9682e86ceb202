import { createHmac } from 'node:crypto';

/**
 * Webhooks are signed as Standard Webhooks (standardwebhooks.com) prescribes, so receivers verify
 * them with that project's libraries in any language:
 *
 * - `webhook-id`: the delivery id, the same on every retry of one delivery: receivers dedupe on it.
 * - `webhook-timestamp`: unix seconds when this attempt was sent.
 * - `webhook-signature`: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">`, keyed with the
 *   base64-decoded part of the `whsec_` secret; right after a rotation it lists one entry per secret
 *   still signing, space-separated, and a receiver accepts the delivery when any entry matches.
 *
 * The id and timestamp are inside the signed text, so a delivery cannot be replayed under another id
 * or a newer timestamp.
 */

export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';

const SECRET_PREFIX = 'whsec_';

/** The HMAC key of a `whsec_<base64>` secret (Node's decoder also takes the URL-safe alphabet of older secrets). */
const keyOf = (secret: string): Buffer => Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');

/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`. */
export const signWebhook = (secret: string, deliveryId: string, timestamp: number, body: string): string =>
  `v1,${createHmac('sha256', keyOf(secret)).update(`${deliveryId}.${timestamp}.${body}`).digest('base64')}`;

export interface SignedHeaders {
  readonly [WEBHOOK_ID_HEADER]: string;
  readonly [WEBHOOK_TIMESTAMP_HEADER]: string;
  readonly [WEBHOOK_SIGNATURE_HEADER]: string;
}

/** Headers of one attempt; `secrets` are the current secret first, then any still in their grace period. */
export const webhookHeaders = (input: {
  readonly deliveryId: string;
  readonly timestamp: number;
  readonly body: string;
  readonly secrets: readonly string[];
}): SignedHeaders => ({
  [WEBHOOK_ID_HEADER]: input.deliveryId,
  [WEBHOOK_TIMESTAMP_HEADER]: String(input.timestamp),
  [WEBHOOK_SIGNATURE_HEADER]: input.secrets.map((secret) => signWebhook(secret, input.deliveryId, input.timestamp, input.body)).join(' '),
});
