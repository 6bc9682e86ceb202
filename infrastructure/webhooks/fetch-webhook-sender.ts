import type { WebhookSender } from '../../application/ports/webhook-sender.js';
import type { HostPolicy } from '../rendering/network-guard.js';

const TIMEOUT_MS = 10_000;

/** POSTs JSON to a URL that passes the private-address guard; anything but 2xx is a failure to retry. */
export const createFetchWebhookSender = (hostPolicy: HostPolicy): WebhookSender => ({
  async post(url, body) {
    await hostPolicy.assertUrlAllowed(url);
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'render-service-webhook/1' },
      body: JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (response.status < 200 || response.status >= 300) {
      throw new Error(`webhook receiver answered ${response.status}`);
    }
  },
});
