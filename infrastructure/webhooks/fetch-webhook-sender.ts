import type { WebhookSender } from '../../application/ports/webhook-sender.js';

export interface FetchWebhookSenderOptions {
  /** Per attempt; a receiver slower than this counts as not answering. */
  readonly timeoutMs: number;
}

/**
 * POSTs the signed body as it is. Redirects are not followed: a 3xx could point anywhere, past the
 * address guard, so it is a failed attempt like any other non-2xx answer.
 */
export const createFetchWebhookSender = ({ timeoutMs }: FetchWebhookSenderOptions): WebhookSender => ({
  async send({ url, body, headers }) {
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'render-service-webhook/1' },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const detail = cause?.code ?? cause?.message ?? (error as Error).message;
      return { ok: false, statusCode: null, error: `no answer from the receiver: ${detail}` };
    }
    // The answer's body is not used; reading it to the end would only hold the connection longer.
    await response.body?.cancel();
    if (response.status >= 200 && response.status < 300) return { ok: true, statusCode: response.status };
    return { ok: false, statusCode: response.status, error: `the receiver answered ${response.status}` };
  },
});
