import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * How webhooks are signed, and how a receiver checks them (the README documents the same steps).
 *
 * - `X-Webhook-Id`: the delivery id, the same on every retry of one delivery: receivers dedupe on it.
 * - `X-Webhook-Timestamp`: unix seconds when this attempt was sent.
 * - `X-Webhook-Signature`: `v1=<hex HMAC-SHA256 of "<timestamp>.<raw body>" under the secret>`; right
 *   after a rotation it lists one `v1=` entry per secret still signing, comma-separated, and a
 *   receiver accepts the delivery when any entry matches.
 *
 * The timestamp is inside the signed text, so an old delivery cannot be replayed with a new timestamp.
 */

export const WEBHOOK_ID_HEADER = 'X-Webhook-Id';
export const WEBHOOK_TIMESTAMP_HEADER = 'X-Webhook-Timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'X-Webhook-Signature';

const SCHEME = 'v1';
/** How far a receiver lets a timestamp stray from its own clock, both ways: older means replayed. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Hex HMAC-SHA256 of `<timestamp>.<body>`, keyed with the secret's UTF-8 bytes. */
export const signWebhook = (secret: string, timestamp: number, body: string): string =>
  createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');

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
  [WEBHOOK_SIGNATURE_HEADER]: input.secrets.map((secret) => `${SCHEME}=${signWebhook(secret, input.timestamp, input.body)}`).join(','),
});

export type VerifyResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const sameHex = (a: string, b: string): boolean => {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  // Buffer.from drops what is not hex, so equal lengths after decoding also need equal text lengths.
  return a.length === b.length && left.length === right.length && timingSafeEqual(left, right);
};

/**
 * What a receiver runs on a delivery: the raw body as received (before any JSON parsing), the two
 * headers, its secret and its clock. Accepts when the timestamp is recent and any `v1=` entry is
 * the HMAC of `<timestamp>.<body>` under the secret, compared in constant time.
 */
export const verifyWebhook = (input: {
  readonly secret: string;
  readonly body: string;
  readonly timestamp: string | null | undefined;
  readonly signature: string | null | undefined;
  readonly nowSeconds: number;
  readonly toleranceSeconds?: number;
}): VerifyResult => {
  if (!input.timestamp || !/^\d+$/.test(input.timestamp)) return { ok: false, reason: 'missing or malformed timestamp' };
  const timestamp = Number(input.timestamp);
  if (Math.abs(input.nowSeconds - timestamp) > (input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
    return { ok: false, reason: 'timestamp outside the tolerance' };
  }
  const candidates = (input.signature ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.startsWith(`${SCHEME}=`))
    .map((entry) => entry.slice(SCHEME.length + 1));
  if (candidates.length === 0) return { ok: false, reason: `no ${SCHEME} signature` };
  const expected = signWebhook(input.secret, timestamp, input.body);
  return candidates.some((candidate) => sameHex(candidate, expected)) ? { ok: true } : { ok: false, reason: 'signature does not match' };
};
