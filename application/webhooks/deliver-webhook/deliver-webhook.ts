import type { WebhookCommand } from '../../../domain/renders/webhook-attempts.js';
import { DomainError } from '../../../domain/shared/errors.js';
import { isVideoFormat } from '../../../domain/templates/template-settings.js';
import type { ResultLinks } from '../../ports/file-storage.js';
import type { Metrics } from '../../ports/metrics.js';
import type { UrlGuard } from '../../ports/page-capture.js';
import type { WebhookResponse, WebhookSender } from '../../ports/webhook-sender.js';
import { requestAsSent } from '../../renders/hit-data.js';
import { loadRender, type AcceptedRender } from '../../renders/load-render.js';
import { resultHref } from '../../renders/result-href.js';
import { systemContextFor } from '../../shared/request-context.js';
import { recordWebhookAttempt } from './record-webhook-attempt.js';
import type { CommandDeps } from '../../shared/command-handler.js';
import type { WebhookSecrets } from '../webhook-secrets.js';
import { webhookHeaders } from './webhook-signature.js';

export interface WebhookDeliveryDeps extends CommandDeps {
  readonly links: ResultLinks;
  readonly sender: WebhookSender;
  /** The private-address guard again at delivery time: the host may resolve elsewhere than when it was accepted. */
  readonly urls: UrlGuard;
  readonly secrets: WebhookSecrets;
  readonly metrics: Pick<Metrics, 'webhookAttempt'>;
}

export interface DeliveryAttempt {
  readonly requestId: string;
  /** The same on every attempt of one delivery; receivers see it as the webhook-id header. */
  readonly deliveryId: string;
  /** 1-based, as the retry policy counts it. */
  readonly attempt: number;
}

export type AttemptOutcome =
  | { readonly status: 'delivered'; readonly attempts: number }
  | { readonly status: 'skipped'; readonly reason: string };

/** The receiver did not take it; retryable, and already recorded as WebhookDeliveryFailed. */
export class WebhookAttemptFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookAttemptFailed';
  }
}

/**
 * Spec section 6: `{ requestId, href, request }` for a finished render, with the template version it
 * drew (renders recorded before versions existed have none). Video renders also say how they ended,
 * as the result does; a request that failed says so and why, so that a client answered at once is not
 * left waiting for a success that will not come.
 */
export const webhookPayload = (render: AcceptedRender, href: string, request: Record<string, unknown> = render.request.request): Record<string, unknown> => {
  const templateVersion = render.kind === 'template' ? render.request.spec.templateVersion : undefined;
  const fit = render.file?.fit;
  const base = {
    requestId: render.request.requestId,
    href,
    request,
    ...(templateVersion !== undefined ? { templateVersion } : {}),
    ...(fit ? { fit } : {}),
    ...(render.request.test ? { test: true } : {}),
  };
  if (render.status === 'failed') return { ...base, status: 'failed', failureReason: render.failureReason };
  return render.kind === 'template' && isVideoFormat(render.request.spec.format) ? { ...base, status: render.status } : base;
};

export type WebhookDelivery = ReturnType<typeof createWebhookDelivery>;

/**
 * One attempt at a time of delivering a finished request's outcome to its webhookUrl, signed with
 * the organization's secret. Every attempt's outcome is an event on the request's stream, decided
 * so that a retried or repeated attempt never records twice or posts again after a success.
 */
export const createWebhookDelivery = (deps: WebhookDeliveryDeps) => {
  const load = (requestId: string) => loadRender(deps.eventStore, requestId);

  const record = (render: AcceptedRender, command: WebhookCommand) => recordWebhookAttempt(deps, render.request, command);

  /** Blocked and unreachable hosts are failed attempts like any other: DNS may change within the retry window. */
  const post = async (url: string, body: string, headers: Record<string, string>): Promise<WebhookResponse> => {
    try {
      await deps.urls.assertUrlAllowed(url);
    } catch (error) {
      if (error instanceof DomainError) return { ok: false, statusCode: null, error: error.message };
      throw error;
    }
    return deps.sender.send({ url, body, headers });
  };

  return {
    async attempt({ requestId, deliveryId, attempt }: DeliveryAttempt): Promise<AttemptOutcome> {
      const render = await load(requestId);
      const url = render.request.webhookUrl;
      if (!url) return { status: 'skipped', reason: 'the request has no webhookUrl' };
      if (render.status === 'pending') throw new DomainError('validation', `Request ${requestId} has not finished; there is nothing to deliver yet`);
      const previous = render.webhookDeliveries.get(deliveryId);
      // A success whose activity result was lost (the worker died right after) is not posted again.
      if (previous?.outcome === 'delivered') return { status: 'delivered', attempts: previous.attempts };
      if (previous?.outcome === 'abandoned') return { status: 'skipped', reason: 'the delivery was abandoned' };

      const context = systemContextFor(render.request.orgId, requestId);
      // A cache hit may hold its data by reference: the receiver gets the request as it was sent.
      const request = await requestAsSent(deps.eventStore, render.request.request, 'spec' in render.request ? render.request.dataFrom : null);
      const body = JSON.stringify(webhookPayload(render, resultHref(deps.links, render.request), request));
      const now = deps.clock.now();
      const headers = webhookHeaders({
        deliveryId,
        timestamp: Math.floor(now.getTime() / 1000),
        body,
        secrets: await deps.secrets.signingSecrets(render.request.orgId, context),
      });
      const response = await post(url, body, { ...headers });
      const at = deps.clock.now().toISOString();
      deps.metrics.webhookAttempt(response.ok ? 'delivered' : 'failed');
      if (response.ok) {
        await record(render, {
          type: 'RecordWebhookDelivery',
          data: { requestId, deliveryId, url, attempt, statusCode: response.statusCode, now: at },
        });
        return { status: 'delivered', attempts: attempt };
      }
      await record(render, {
        type: 'RecordWebhookFailure',
        data: { requestId, deliveryId, url, attempt, statusCode: response.statusCode, error: response.error, now: at },
      });
      throw new WebhookAttemptFailed(`webhook attempt ${attempt} to ${url} failed: ${response.error}`);
    },

    /** Records that retries ran out; nothing for a request without a webhook or a delivery that ended. */
    async abandon({ requestId, deliveryId, reason }: Omit<DeliveryAttempt, 'attempt'> & { readonly reason: string }): Promise<void> {
      const render = await load(requestId);
      const url = render.request.webhookUrl;
      if (!url) return;
      await record(render, { type: 'AbandonWebhook', data: { requestId, deliveryId, url, reason, now: deps.clock.now().toISOString() } });
    },
  };
};
