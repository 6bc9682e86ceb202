import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** A delivery as a receiver got it: raw body and headers. */
export interface ReceivedPost {
  readonly body: string;
  readonly headers: IncomingHttpHeaders;
}

/**
 * What a receiver computes, written out from the Standard Webhooks spec independently of the
 * service's code: base64 HMAC-SHA256 of `<id>.<timestamp>.<body>` keyed with the decoded secret.
 */
export const expectedSignature = (secret: string, post: ReceivedPost): string =>
  createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
    .update(`${String(post.headers['webhook-id'])}.${String(post.headers['webhook-timestamp'])}.${post.body}`)
    .digest('base64');

/** The signatures of a delivery, without their `v1,` scheme, in the order sent. */
export const signaturesOf = (post: ReceivedPost): string[] =>
  String(post.headers['webhook-signature'])
    .split(' ')
    .map((entry) => entry.replace(/^v1,/, ''));

/** Verifies with the standardwebhooks npm library, as a receiver would: returns the parsed payload, throws when it does not verify. */
export const verifyWithLibrary = (secret: string, post: ReceivedPost): unknown =>
  new Webhook(secret).verify(post.body, {
    'webhook-id': String(post.headers['webhook-id']),
    'webhook-timestamp': String(post.headers['webhook-timestamp']),
    'webhook-signature': String(post.headers['webhook-signature']),
  });
