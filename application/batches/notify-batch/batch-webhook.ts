import { batchDecider } from '../../../domain/batches/batch-decider.js';
import { batchStream } from '../../../domain/batches/batch-events.js';
import { DomainError } from '../../../domain/shared/errors.js';
import type { Clock } from '../../ports/clock.js';
import type { EventStore } from '../../ports/event-store.js';
import type { UrlGuard } from '../../ports/page-capture.js';
import type { WebhookSender } from '../../ports/webhook-sender.js';
import { systemContextFor } from '../../shared/request-context.js';
import { aggregateStream } from '../../shared/stream-reads.js';
import { webhookHeaders } from '../../webhooks/deliver-webhook/webhook-signature.js';
import type { WebhookSecrets } from '../../webhooks/webhook-secrets.js';

export interface BatchWebhookDeps {
  readonly eventStore: EventStore;
  readonly clock: Clock;
  readonly sender: WebhookSender;
  readonly secrets: Pick<WebhookSecrets, 'signingSecrets'>;
  readonly urls: UrlGuard;
  /** Where clients reach the service: the payload links the batch's ZIP and merged PDF under it. */
  readonly publicBaseUrl: string;
}

/** A receiver that did not take the delivery: the attempt is retried, under the same delivery id. */
export class BatchWebhookFailed extends Error {
  override readonly name = 'BatchWebhookFailed';
}

/** The delivery id of a batch's one webhook: receivers dedupe its retries on it. */
export const batchDeliveryId = (batchId: string) => `batch-${batchId}`;

/**
 * One attempt at telling a batch's webhookUrl that the batch ended (`batch.completed`, with its
 * counts), signed as every webhook of the organization is (Standard Webhooks). Nothing for a batch
 * without a webhookUrl. A refused or unreachable receiver throws BatchWebhookFailed.
 */
export const deliverBatchWebhook = async (deps: BatchWebhookDeps, batchId: string): Promise<'delivered' | 'skipped'> => {
  const { state } = await aggregateStream(deps.eventStore, batchStream(batchId), batchDecider);
  if (state.status === 'absent') return 'skipped';
  const { request, ended, cancelledAt } = state;
  const url = request.webhookUrl;
  if (url === null) return 'skipped';
  if (!ended) throw new DomainError('validation', `Batch ${batchId} has not ended; there is nothing to tell yet`);
  const base = `${deps.publicBaseUrl.replace(/\/+$/, '')}/api/v2/batches/${encodeURIComponent(batchId)}`;
  const now = deps.clock.now();
  const body = JSON.stringify({
    type: 'batch.completed',
    timestamp: now.toISOString(),
    data: {
      identifier: batchId,
      name: request.name,
      template: request.templateId,
      status: cancelledAt ? 'cancelled' : 'done',
      total: request.total,
      done: ended.done,
      failed: ended.failed,
      cached: ended.cached,
      skipped: ended.skipped,
      creditsCharged: ended.creditsCharged,
      finishedAt: ended.endedAt,
      zipHref: `${base}/zip`,
      mergedHref: ended.mergedStorageKey ? `${base}/merged.pdf` : null,
    },
  });
  try {
    await deps.urls.assertUrlAllowed(url);
  } catch (error) {
    // DNS may change within the retry window: a blocked host is a failed attempt like any other.
    if (error instanceof DomainError) throw new BatchWebhookFailed(`batch webhook to ${url} refused: ${error.message}`);
    throw error;
  }
  const headers = webhookHeaders({
    deliveryId: batchDeliveryId(batchId),
    timestamp: Math.floor(now.getTime() / 1000),
    body,
    secrets: await deps.secrets.signingSecrets(request.orgId, systemContextFor(request.orgId, batchId)),
  });
  const response = await deps.sender.send({ url, body, headers: { ...headers } });
  if (!response.ok) throw new BatchWebhookFailed(`batch webhook to ${url} failed: ${response.error}`);
  return 'delivered';
};
