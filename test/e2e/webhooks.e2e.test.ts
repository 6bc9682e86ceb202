import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createTRPCClient, httpLink } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountStream } from '../../domain/accounts/account-events.js';
import { renderStream } from '../../domain/renders/render-events.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import type { AppRouter } from '../../interfaces/trpc/app-router.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait-for.js';
import { expectedSignature, signaturesOf, verifyWithLibrary } from '../support/standard-webhooks.js';
import { TYPESCRIPT_FLAGS } from '../../infrastructure/system/node-flags.js';

/*
 * Webhooks against a receiver in this process, through the whole service: a worker in this
 * process with retry intervals short enough to watch (hundreds of milliseconds instead of seconds),
 * and a retry window of a few seconds so giving up can be watched too.
 */

const RETRY_WINDOW_MS = 4_000;

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

let app: TestApp;
let receiver: Server;
let receiverBase: string;
let templateId: string;
let orgId: string;
const received: Received[] = [];
/** Status codes a receiver path answers with, in order; 200 once they run out. */
const scripts = new Map<string, number[]>();

const trpc = (key: string) =>
  createTRPCClient<AppRouter>({ links: [httpLink({ url: `${app.url}/trpc`, headers: { 'x-api-key': key } })] });

/** A receiver path of its own per test, answering `statuses` first. */
const hook = (statuses: number[] = []) => {
  const pathname = `/hook/${randomUUID()}`;
  scripts.set(pathname, [...statuses]);
  return { url: `${receiverBase}${pathname}`, posts: () => received.filter((post) => post.path === pathname) };
};

const renderWith = async (webhookUrl: string, extra: Record<string, unknown> = {}) => {
  const response = await app.call('POST', '/api/v2/render', {
    body: { template: templateId, data: { title: 'Hook' }, outputFormat: 'png', cache: false, webhookUrl, ...extra },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as { requestId: string; href: string };
};

const webhookEvents = async (requestId: string) =>
  (await app.runtime.eventStore.readStream(renderStream(requestId))).filter((event) => event.type.startsWith('Webhook'));

/** The detailed result once its webhook reached `status` (the projection follows the events). */
const resultWhenWebhook = (requestId: string, status: string) =>
  waitFor(`webhook ${status} on result ${requestId}`, async () => {
    const detail = await app.call('GET', `/api/v2/results/${requestId}`);
    return detail.body?.webhook?.status === status ? detail.body : undefined;
  });

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const pathname = req.url ?? '';
      received.push({ path: pathname, headers: req.headers, body });
      res.writeHead(scripts.get(pathname)?.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  app = await startTestApp({
    rendering: 'worker',
    env: {
      // The receiver listens on loopback, which is private unless allowed.
      ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_INITIAL_MS: '200',
      WEBHOOK_RETRY_MAX_INTERVAL_MS: '800',
      WEBHOOK_RETRY_FOR_MS: String(RETRY_WINDOW_MS),
    },
  });
  const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'Hooked', width: 120, height: 60, editor: 'html-editor' } });
  templateId = created.body.identifier;
  await app.call('PUT', `/api/v2/my-templates/${templateId}/html-editor`, { body: { html: '<h1>{{title}}</h1>', css: 'h1{margin:0}' } });
  orgId = (await trpc(app.apiKey).ping.query()).orgId;
});

afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
});

describe('signed webhooks', () => {
  it('POSTs { requestId, href, request } signed with the organization secret and records the delivery', { timeout: 60_000 }, async () => {
    const { secret } = await trpc(app.apiKey).account.webhookSecret.query();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const target = hook();
    const before = Math.floor(Date.now() / 1000);
    const { requestId, href } = await renderWith(target.url, { metadata: { ref: 'w1' } });

    const [post] = await waitFor('the webhook', () => (target.posts().length > 0 ? target.posts() : undefined));
    if (!post) throw new Error('no post');
    expect(JSON.parse(post.body)).toEqual({
      requestId,
      href,
      request: { template: templateId, data: { title: 'Hook' }, outputFormat: 'png', cache: false, webhookUrl: target.url, metadata: { ref: 'w1' } },
      // Created, then its content written: version 2.
      templateVersion: 2,
    });
    expect(post.headers['content-type']).toBe('application/json');
    const timestamp = String(post.headers['webhook-timestamp']);
    expect(Number(timestamp)).toBeGreaterThanOrEqual(before);
    expect(Number(timestamp)).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(post.headers['webhook-signature']).toBe(`v1,${expectedSignature(secret, post)}`);
    const deliveryId = String(post.headers['webhook-id']);
    expect(deliveryId).toMatch(/^[0-9a-f-]{36}$/);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    // The receiver-side check the README documents: the standardwebhooks library itself.
    expect(verifyWithLibrary(secret, post)).toEqual(JSON.parse(post.body));
    expect(() => verifyWithLibrary(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, post)).toThrow();
    expect(() => verifyWithLibrary(secret, { ...post, body: post.body.replace('Hook', 'Hack') })).toThrow();

    const detail = await resultWhenWebhook(requestId, 'delivered');
    expect(detail.webhook).toMatchObject({ url: target.url, attempts: 1, lastStatusCode: 200, lastError: null, deliveredAt: expect.any(String) });
    const events = await webhookEvents(requestId);
    expect(events.map((event) => [event.type, event.data])).toEqual([
      ['WebhookDelivered', { requestId, deliveryId, url: target.url, attempts: 1, statusCode: 200, deliveredAt: expect.any(String) }],
    ]);
    expect(target.posts()).toHaveLength(1);
  });

  it('retries a receiver that fails twice, with the same delivery id, until it takes the delivery', { timeout: 60_000 }, async () => {
    const { secret } = await trpc(app.apiKey).account.webhookSecret.query();
    const target = hook([500, 503]);
    const { requestId } = await renderWith(target.url);

    const detail = await resultWhenWebhook(requestId, 'delivered');
    expect(detail.webhook).toMatchObject({ attempts: 3, lastStatusCode: 200, lastError: null });
    const posts = target.posts();
    expect(posts).toHaveLength(3);
    expect(new Set(posts.map((post) => post.headers['webhook-id'])).size).toBe(1);
    for (const post of posts) {
      expect(signaturesOf(post)).toEqual([expectedSignature(secret, post)]);
      expect(post.body).toBe(posts[0]?.body);
    }
    const deliveryId = String(posts[0]?.headers['webhook-id']);
    const events = await webhookEvents(requestId);
    expect(events.map((event) => [event.type, event.data])).toEqual([
      ['WebhookDeliveryFailed', { requestId, deliveryId, url: target.url, attempt: 1, statusCode: 500, error: 'the receiver answered 500', failedAt: expect.any(String) }],
      ['WebhookDeliveryFailed', { requestId, deliveryId, url: target.url, attempt: 2, statusCode: 503, error: 'the receiver answered 503', failedAt: expect.any(String) }],
      ['WebhookDelivered', { requestId, deliveryId, url: target.url, attempts: 3, statusCode: 200, deliveredAt: expect.any(String) }],
    ]);
  });

  it('delivers a render answered from the cache like any other', { timeout: 60_000 }, async () => {
    const target = hook();
    const data = { title: `Cached ${randomUUID()}` };
    const first = await renderWith(target.url, { cache: true, data });
    await resultWhenWebhook(first.requestId, 'delivered');
    const second = await app.call('POST', '/api/v2/render', { body: { template: templateId, data, outputFormat: 'png', webhookUrl: target.url } });
    expect(second.status).toBe(200);
    expect(second.body.cached).toBe(true);

    const detail = await resultWhenWebhook(second.body.requestId, 'delivered');
    expect(detail).toMatchObject({ cached: true, webhook: { attempts: 1, lastStatusCode: 200 } });
    const bodies = target.posts().map((post) => JSON.parse(post.body));
    expect(bodies.map((body) => body.requestId)).toEqual([first.requestId, second.body.requestId]);
    expect(bodies[1]).toEqual({ requestId: second.body.requestId, href: second.body.href, request: { template: templateId, data, outputFormat: 'png', webhookUrl: target.url }, templateVersion: 2 });
  });

  it('counts a receiver that is not listening as a failed attempt with no status code', { timeout: 60_000 }, async () => {
    // A port nobody listens on: bind one, note it, close it.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { requestId } = await renderWith(`http://127.0.0.1:${port}/nobody`);

    const failed = await waitFor('a failed attempt', async () => (await webhookEvents(requestId)).find((event) => event.type === 'WebhookDeliveryFailed'));
    expect(failed.data).toMatchObject({ attempt: 1, statusCode: null, error: expect.stringMatching(/ECONNREFUSED/) });
  });

  it('gives up when the retry window closes: WebhookAbandoned with the attempts made, and the result says failed', { timeout: 60_000 }, async () => {
    const target = hook(Array.from({ length: 100 }, () => 500));
    const { requestId } = await renderWith(target.url);

    const detail = await waitFor(
      'the webhook to be abandoned',
      async () => {
        const body = (await app.call('GET', `/api/v2/results/${requestId}`)).body;
        return body?.webhook?.status === 'failed' ? body : undefined;
      },
      RETRY_WINDOW_MS + 20_000,
    );
    const events = await webhookEvents(requestId);
    const failures = events.filter((event) => event.type === 'WebhookDeliveryFailed');
    const abandoned = events.at(-1) as RecordedEvent | undefined;
    expect(failures.length).toBeGreaterThanOrEqual(3);
    expect(failures.map((event) => (event.data as { attempt: number }).attempt)).toEqual(failures.map((_, index) => index + 1));
    expect(abandoned?.type).toBe('WebhookAbandoned');
    expect(abandoned?.data).toMatchObject({ requestId, url: target.url, attempts: failures.length, reason: expect.any(String) });
    expect(detail.webhook).toMatchObject({ status: 'failed', attempts: failures.length, lastStatusCode: 500, deliveredAt: null });
    expect(target.posts()).toHaveLength(failures.length);
    // The render itself stands.
    expect(detail.status).toBe('done');
  });

  it.each([
    ['a private address', 'http://10.1.2.3/hook'],
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data'],
    ['IPv6 loopback', 'http://[::1]:8080/hook'],
  ])('refuses a webhookUrl on %s with 400 before any work', async (_name, webhookUrl) => {
    const usageBefore = (await app.call('GET', '/api/v1/usage')).body.credits.used;
    const listedBefore = (await app.call('GET', '/api/v2/results?size=50')).body.totalElements;
    const response = await app.call('POST', '/api/v2/render', { body: { template: templateId, cache: false, webhookUrl } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ msg: expect.stringMatching(/^webhookUrl: .*blocked/), status: 400, errors: [expect.stringMatching(/^webhookUrl: /)] });
    expect((await app.call('GET', '/api/v1/usage')).body.credits.used).toBe(usageBefore);
    expect((await app.call('GET', '/api/v2/results?size=50')).body.totalElements).toBe(listedBefore);
  });
});

describe('the webhook secret', () => {
  it('rotates through tRPC; the old secret keeps signing beside the new one', { timeout: 60_000 }, async () => {
    const client = trpc(app.apiKey);
    const { secret: old } = await client.account.webhookSecret.query();
    const { secret: rotated } = await client.account.rotateWebhookSecret.mutate();
    expect(rotated).not.toBe(old);
    expect((await client.account.webhookSecret.query()).secret).toBe(rotated);

    const target = hook();
    const { requestId } = await renderWith(target.url);
    await resultWhenWebhook(requestId, 'delivered');
    const [post] = target.posts();
    if (!post) throw new Error('no post');
    expect(signaturesOf(post)).toEqual([expectedSignature(rotated, post), expectedSignature(old, post)]);
    for (const secret of [rotated, old]) expect(verifyWithLibrary(secret, post)).toEqual(JSON.parse(post.body));
  });

  it('is scoped to the caller: another organization has a secret of its own', async () => {
    const other = await trpc(await app.newOrganizationKey()).account.webhookSecret.query();
    expect(other.secret).not.toBe((await trpc(app.apiKey).account.webhookSecret.query()).secret);
  });

  it('needs the admin scope: a key with every other scope cannot read or rotate it', async () => {
    const { key } = await app.runtime.services.accounts.issueApiKey(orgId, { label: 'no admin', scopes: ['render', 'templates', 'audit'] });
    await expect(trpc(key).account.webhookSecret.query()).rejects.toMatchObject({ data: { httpStatus: 403 } });
    await expect(trpc(key).account.rotateWebhookSecret.mutate()).rejects.toMatchObject({ data: { httpStatus: 403 } });
  });

  it('is issued on first use to an account opened without one, once', async () => {
    const legacyOrg = `org-legacy-${randomUUID()}`;
    const plan = { name: 'free', status: 'active', credits: 10, renewalAmount: 10, nextRenewalAt: '2099-01-01', uploadsBytes: 100 };
    await app.runtime.eventStore.append(
      accountStream(legacyOrg),
      [
        {
          type: 'AccountOpened',
          data: { orgId: legacyOrg, name: 'Legacy', plan, openedAt: new Date().toISOString() },
          metadata: { eventId: randomUUID(), schemaVersion: 1, occurredAt: new Date().toISOString(), orgId: legacyOrg, actor: 'system', correlationId: 'c', causationId: 'c' },
        },
      ],
      'no-stream',
    );
    const first = await app.runtime.services.accounts.webhookSecret(legacyOrg);
    const second = await app.runtime.services.accounts.webhookSecret(legacyOrg);
    expect(second.secret).toBe(first.secret);
    const types = (await app.runtime.eventStore.readStream(accountStream(legacyOrg))).map((event) => event.type);
    expect(types).toEqual(['AccountOpened', 'WebhookSecretIssued']);
  });

  it('shows and rotates through the CLI', { timeout: 90_000 }, async () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const cli = (...args: string[]) =>
      promisify(execFile)(path.join(root, 'node_modules/.bin/node'), [...TYPESCRIPT_FLAGS, 'interfaces/cli/main.ts', ...args], {
        cwd: root,
        env: { ...process.env, DATABASE_URL: app.runtime.config.DATABASE_URL, DATA_DIR: app.runtime.config.DATA_DIR, EVENTSTORE_URL: '', LOG_LEVEL: 'error' },
      });
    const shown = JSON.parse((await cli('webhook-secret', 'show', '--org', orgId)).stdout);
    expect(shown).toEqual({ orgId, secret: (await trpc(app.apiKey).account.webhookSecret.query()).secret });
    const rotated = JSON.parse((await cli('webhook-secret', 'rotate', '--org', orgId)).stdout);
    expect(rotated).toMatchObject({ orgId, secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.secret).not.toBe(shown.secret);
    expect((await trpc(app.apiKey).account.webhookSecret.query()).secret).toBe(rotated.secret);
  });
});
