import http from 'node:http';
import https from 'node:https';
import type { WebhookSender } from '../../application/ports/webhook-sender.js';
import { guardedLookup } from '../security/guarded-lookup.js';

export interface FetchWebhookSenderOptions {
  /** Per attempt; a receiver slower than this counts as not answering. */
  readonly timeoutMs: number;
  /** The checked address for a receiver's host (the private-address guard); throws when it may not be reached. */
  readonly allowedAddress: (host: string) => Promise<string>;
}

/**
 * POSTs the signed body as it is. Redirects are not followed: a 3xx could point anywhere, past the
 * address guard, so it is a failed attempt like any other non-2xx answer.
 */
export const createFetchWebhookSender = ({ timeoutMs, allowedAddress }: FetchWebhookSenderOptions): WebhookSender => {
  const lookup = guardedLookup(allowedAddress);
  return {
    send: ({ url, body, headers }) =>
      new Promise((resolve) => {
        const target = new URL(url);
        const client = target.protocol === 'https:' ? https : http;
        const request = client.request(
          target,
          {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'render-service-webhook/1' },
            lookup,
            // One deadline for the whole attempt: a receiver that trickles its answer is no answer either.
            signal: AbortSignal.timeout(timeoutMs),
          },
          (response) => {
            // The answer's body is not used; reading it to the end would only hold the connection longer.
            response.destroy();
            const status = response.statusCode ?? 0;
            if (status >= 200 && status < 300) resolve({ ok: true, statusCode: status });
            else resolve({ ok: false, statusCode: status, error: `the receiver answered ${status}` });
          },
        );
        request.on('error', (error: NodeJS.ErrnoException) => {
          const detail = error.name === 'AbortError' ? `nothing within ${timeoutMs} ms` : (error.code ?? error.message);
          resolve({ ok: false, statusCode: null, error: `no answer from the receiver: ${detail}` });
        });
        request.end(body);
      }),
  };
};
