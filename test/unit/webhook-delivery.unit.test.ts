import { Webhook } from 'standardwebhooks';
import { beforeEach, describe, expect, it } from 'vitest';
import type { WebhookResponse } from '../../application/ports/webhook-sender.js';
import type { RenderInput } from '../../application/renders/request-render/render-input.js';
import { createResultService } from '../../application/results/result-service.js';
import { createWebhookDelivery, WebhookAttemptFailed } from '../../application/webhooks/deliver-webhook/deliver-webhook.js';
import { createWebhookSecrets } from '../../application/webhooks/webhook-secrets.js';
import { contextOf, createWorld, ORG, WEBHOOK_SECRET, type World } from '../support/application-world.js';
import { expectDomainError } from '../support/expect-domain-error.js';
import { createFakeOrchestrator } from '../support/fake-orchestrator.js';
import { fakeWebhookSender, recordingMetrics, urlGuard } from '../support/port-fakes.js';

/**
 * Given/when/then for one webhook attempt on the in-memory event store: a finished request, a fake
 * sender standing in for the receiver; the real delivery, secrets, signature and render decider.
 */

const HOOK = 'https://hooks.example.com/renders';
const NEW_SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;

let world: World;
let templateId: string;

const webhooks = (options: { responses?: WebhookResponse[]; blockedHosts?: string[] } = {}) => {
  const sender = fakeWebhookSender(...(options.responses ?? [{ ok: true, statusCode: 200 }]));
  const metrics = recordingMetrics();
  const secrets = createWebhookSecrets({ ...world.commandDeps, generator: { generate: () => NEW_SECRET }, secretSealer: world.sealer });
  const delivery = createWebhookDelivery({ ...world.commandDeps, links: world.links, sender, urls: urlGuard(options.blockedHosts), secrets, metrics });
  return { delivery, sender, metrics, secrets };
};

/** A request answered by webhook whose render has finished. */
const finished = async (input: Partial<RenderInput> = {}) => {
  const answer = await world.renderService().render(contextOf(), { template: templateId, data: { title: 'Hello' }, webhookUrl: HOOK, ...input });
  // A render completes; a cache hit is served done in one event.
  expect(await world.typesOf(answer.requestId)).toEqual(expect.arrayContaining([expect.stringMatching(/^(RenderCompleted|RenderServedFromCache)$/)]));
  return answer;
};

const resultOf = (requestId: string) =>
  createResultService({ ...world.commandDeps, results: world.readModels.results, progress: world.readModels.progress, storage: world.storage, links: world.links }).get(
    contextOf(),
    requestId,
  );

beforeEach(async () => {
  world = createWorld();
  await world.given.account(ORG);
  templateId = await world.given.htmlTemplate(ORG);
});

describe('webhook delivery: one attempt', () => {
  it('posts the outcome once, signed with the organization secret, and records the delivery', async () => {
    const { requestId, href } = await finished();
    const { delivery, sender, metrics } = webhooks();
    world.clock.advance(5000);

    const outcome = await delivery.attempt({ requestId, deliveryId: 'msg_1', attempt: 1 });

    expect(outcome).toEqual({ status: 'delivered', attempts: 1 });
    expect(sender.sent).toHaveLength(1);
    const [sent] = sender.sent;
    expect(sent?.url).toBe(HOOK);
    expect(JSON.parse(sent?.body ?? '')).toEqual({ requestId, href, request: { template: templateId, data: { title: 'Hello' }, webhookUrl: HOOK }, templateVersion: 2 });
    const timestamp = Math.floor(world.clock.now().getTime() / 1000);
    expect(sent?.headers).toEqual({
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': new Webhook(WEBHOOK_SECRET).sign('msg_1', new Date(timestamp * 1000), sent?.body ?? ''),
    });
    expect((await world.streamOf(requestId)).at(-1)).toMatchObject({
      type: 'WebhookDelivered',
      data: { requestId, deliveryId: 'msg_1', url: HOOK, attempts: 1, statusCode: 200, deliveredAt: '2026-03-01T12:00:05.000Z' },
      metadata: { actor: 'system', orgId: ORG, correlationId: requestId },
    });
    expect(metrics.webhookAttempts).toEqual(['delivered']);
    expect((await resultOf(requestId)).webhook).toMatchObject({ status: 'delivered', attempts: 1, lastStatusCode: 200 });
  });

  it('does not post again for a delivery already made (an activity whose result was lost)', async () => {
    const { requestId } = await finished();
    const { delivery, sender } = webhooks();
    await delivery.attempt({ requestId, deliveryId: 'msg_1', attempt: 1 });
    const eventsBefore = (await world.streamOf(requestId)).length;

    expect(await delivery.attempt({ requestId, deliveryId: 'msg_1', attempt: 2 })).toEqual({ status: 'delivered', attempts: 1 });

    expect(sender.sent).toHaveLength(1);
    expect(await world.streamOf(requestId)).toHaveLength(eventsBefore);
  });

  it('records a refused attempt and fails it for a retry, which then delivers', async () => {
    const { requestId } = await finished();
    const { delivery, sender, metrics } = webhooks({ responses: [{ ok: false, statusCode: 503, error: 'HTTP 503' }, { ok: true, statusCode: 204 }] });

    await expect(delivery.attempt({ requestId, deliveryId: 'msg_1', attempt: 1 })).rejects.toBeInstanceOf(WebhookAttemptFailed);
    expect((await world.streamOf(requestId)).at(-1)).toMatchObject({ type: 'WebhookDeliveryFailed', data: { attempt: 1, statusCode: 503, error: 'HTTP 503' } });
    expect((await resultOf(requestId)).webhook).toMatchObject({ status: 'retrying', attempts: 1, lastStatusCode: 503, lastError: 'HTTP 503' });

    expect(await delivery.attempt({ requestId, deliveryId: 'msg_1', attempt: 2 })).toEqual({ status: 'delivered', attempts: 2 });

    expect(sender.sent.map((request) => request.headers['webhook-id'])).toEqual(['msg_1', 'msg_1']);
    expect(metrics.webhookAttempts).toEqual(['failed', 'delivered']);
    expect((await resultOf(requestId)).webhook).toMatchObject({ status: 'delivered', attempts: 2, lastStatusCode: 204, lastError: null });
  });

  it('fails an attempt to a host the guard refuses at delivery time, without posting', async () => {
    const { requestId } = await finished();
    const { delivery, sender } = webhooks({ blockedHosts: ['hooks.example.com'] });

    await expect(delivery.attempt({ requestId, deliveryId: 'msg_1', attempt: 1 })).rejects.toThrow(/resolves to a private address/);

    expect(sender.sent).toEqual([]);
    expect((await world.streamOf(requestId)).at(-1)).toMatchObject({ type: 'WebhookDeliveryFailed', data: { statusCode: null } });
  });

  it('tells the webhook of a failed render, and why', async () => {
    world.engine.failWith(new Error('the browser crashed'));
    const { requestId } = await world.renderService().render(contextOf(), { template: templateId, webhookUrl: HOOK });
    const { delivery, sender } = webhooks();

    await delivery.attempt({ requestId, deliveryId: 'msg_1', attempt: 1 });

    expect(JSON.parse(sender.sent[0]?.body ?? '')).toMatchObject({ requestId, status: 'failed', failureReason: 'the browser crashed' });
  });

  it('sends a cache hit the data its client sent, although the hit stores it by reference', async () => {
    const data = { title: 'Hello', text: 'x'.repeat(2000) };
    await finished({ data });
    const hit = await finished({ data });
    expect(hit.cached).toBe(true);
    const recorded = (await world.streamOf(hit.requestId))[0]?.data as { dataFrom: string | null; request: object };
    expect(recorded.dataFrom).toEqual(expect.any(String));
    expect(recorded.request).not.toHaveProperty('data');
    const { delivery, sender } = webhooks();

    await delivery.attempt({ requestId: hit.requestId, deliveryId: 'msg_hit', attempt: 1 });

    expect(JSON.parse(sender.sent[0]?.body ?? '').request.data).toEqual(data);
  });

  it('signs with the new secret and the previous one while its grace lasts', async () => {
    const { requestId } = await finished();
    const { delivery, sender, secrets } = webhooks();
    await secrets.rotate(ORG, contextOf());

    await delivery.attempt({ requestId, deliveryId: 'msg_1', attempt: 1 });

    const [sent] = sender.sent;
    const timestamp = new Date(Number(sent?.headers['webhook-timestamp']) * 1000);
    expect(sent?.headers['webhook-signature']).toBe(
      `${new Webhook(NEW_SECRET).sign('msg_1', timestamp, sent?.body ?? '')} ${new Webhook(WEBHOOK_SECRET).sign('msg_1', timestamp, sent?.body ?? '')}`,
    );
  });
});

describe('webhook delivery: nothing to deliver', () => {
  it('skips a request without a webhookUrl', async () => {
    const { requestId } = await world.renderService().render(contextOf(), { template: templateId });
    const { delivery, sender } = webhooks();

    expect(await delivery.attempt({ requestId, deliveryId: 'msg_1', attempt: 1 })).toEqual({ status: 'skipped', reason: 'the request has no webhookUrl' });
    expect(sender.sent).toEqual([]);
  });

  it('refuses to deliver a request that has not finished', async () => {
    const pending = createFakeOrchestrator();
    const { requestId } = await world.renderService({ orchestrator: pending }).render(contextOf(), { template: templateId, webhookUrl: HOOK });
    const { delivery, sender } = webhooks();

    await expectDomainError(delivery.attempt({ requestId, deliveryId: 'msg_1', attempt: 1 }), 'validation');
    expect(sender.sent).toEqual([]);
  });

  it('records an abandoned delivery once retries ran out, and attempts nothing after it', async () => {
    const { requestId } = await finished();
    const { delivery, sender } = webhooks();

    await delivery.abandon({ requestId, deliveryId: 'msg_1', reason: 'retries ran out' });

    expect((await world.streamOf(requestId)).at(-1)).toMatchObject({ type: 'WebhookAbandoned', data: { deliveryId: 'msg_1', reason: 'retries ran out' } });
    expect(await delivery.attempt({ requestId, deliveryId: 'msg_1', attempt: 9 })).toEqual({ status: 'skipped', reason: 'the delivery was abandoned' });
    expect(sender.sent).toEqual([]);
    expect((await resultOf(requestId)).webhook).toMatchObject({ status: 'failed' });
  });
});
