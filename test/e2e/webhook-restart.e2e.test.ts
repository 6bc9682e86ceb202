import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { renderStream } from '../../domain/renders/render-events.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { killWorkerHost, startWorkerProcess, stopWorkerProcesses } from '../support/worker-process.js';
import { waitFor } from '../support/wait-for.js';
import { expectedSignature, verifyWithLibrary } from '../support/standard-webhooks.js';

/*
 * A webhook receiver that is down while the only worker tries it, and that worker killed like a
 * lost machine. The retries live in Temporal, not in the worker: once the receiver is back and a
 * new worker polls, the same delivery (same id, next attempt number) arrives, once.
 */

/** Hrefs are written by the worker, so both processes must agree on the public base URL. */
const PUBLIC_BASE_URL = 'http://render.test';
const FAILURES_BEFORE_KILL = 2;
const DELIVERY_TIMEOUT_MS = 90_000;

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

let app: TestApp;
let temporal: Connection;
let receiver: Server | undefined;
let port: number;
const received: Received[] = [];

const webhookEvents = async (requestId: string) =>
  (await app.runtime.eventStore.readStream(renderStream(requestId))).filter((event) => event.type.startsWith('Webhook'));

const startReceiver = async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver?.listen(port, '127.0.0.1', resolve));
};

beforeAll(async () => {
  // A port nobody listens on until the receiver comes up on it.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));

  app = await startTestApp({ rendering: 'client', env: { ALLOWED_PRIVATE_HOSTS: '127.0.0.1', PUBLIC_BASE_URL } });
  temporal = await Connection.connect({ address: inject('temporalAddress') ?? '' });
});

afterAll(async () => {
  await stopWorkerProcesses();
  await app?.close();
  await temporal?.close();
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
});

describe('a webhook receiver down across a worker restart', () => {
  it('still gets the delivery, once, from the new worker', { timeout: 240_000 }, async () => {
    const workerEnv = {
      DATABASE_URL: app.runtime.config.DATABASE_URL ?? '',
      DATA_DIR: app.runtime.config.DATA_DIR,
      // Events in the PostgreSQL the API in this process uses, not an EventStoreDB the environment may name.
      EVENTSTORE_URL: '',
      TEMPORAL_ADDRESS: inject('temporalAddress') ?? '',
      TEMPORAL_TASK_QUEUE: app.runtime.config.TEMPORAL_TASK_QUEUE,
      ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
      PUBLIC_BASE_URL,
      WEBHOOK_RETRY_INITIAL_MS: '300',
      WEBHOOK_RETRY_MAX_INTERVAL_MS: '1000',
      // Bounds an attempt the kill might cut short: Temporal retries it after this.
      WEBHOOK_TIMEOUT_MS: '2000',
    };
    const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'Restart', width: 120, height: 60, editor: 'html-editor' } });
    const templateId: string = created.body.identifier;
    await app.call('PUT', `/api/v2/my-templates/${templateId}/html-editor`, { body: { html: '<h1>{{title}}</h1>' } });

    const first = await startWorkerProcess(workerEnv);
    const webhookUrl = `http://127.0.0.1:${port}/hook`;
    const accepted = await app.call('POST', '/api/v2/render', { body: { template: templateId, data: { title: 'Later' }, cache: false, webhookUrl } });
    expect(accepted.status).toBe(200);
    const { requestId, href } = accepted.body as { requestId: string; href: string };
    expect(href.startsWith(`${PUBLIC_BASE_URL}/`)).toBe(true);

    await waitFor(
      `${FAILURES_BEFORE_KILL} failed attempts`,
      async () => ((await webhookEvents(requestId)).length >= FAILURES_BEFORE_KILL ? true : undefined),
      60_000,
    );
    killWorkerHost(first);
    await first.exited;
    expect(first.child.signalCode).toBe('SIGKILL');
    const failedBeforeRestart = (await webhookEvents(requestId)).length;
    expect(received).toEqual([]);

    await startReceiver();
    const second = await startWorkerProcess(workerEnv);
    const delivered = await waitFor(
      'the delivery',
      async () => (await webhookEvents(requestId)).find((event) => event.type === 'WebhookDelivered'),
      DELIVERY_TIMEOUT_MS,
    );

    // Every attempt before the delivery failed without an answer, numbered without gaps, one delivery id.
    const events = await webhookEvents(requestId);
    const failures = events.filter((event) => event.type === 'WebhookDeliveryFailed') as RecordedEvent[];
    const failed = failures.map((event) => event.data as { deliveryId: string; attempt: number; statusCode: number | null });
    expect(failed.length).toBeGreaterThanOrEqual(failedBeforeRestart);
    expect(failed.map((attempt) => attempt.attempt)).toEqual(failed.map((_, index) => index + 1));
    expect(failed.every((attempt) => attempt.statusCode === null)).toBe(true);
    const deliveryId = failed[0]?.deliveryId;
    expect(failed.every((attempt) => attempt.deliveryId === deliveryId)).toBe(true);
    expect(delivered.data).toMatchObject({ requestId, deliveryId, url: webhookUrl, attempts: failed.length + 1, statusCode: 204 });
    expect(events.map((event) => event.type)).toEqual([...failures.map(() => 'WebhookDeliveryFailed'), 'WebhookDelivered']);

    // Received once, as the first worker would have sent it, and signed with the organization's secret.
    expect(received).toHaveLength(1);
    const [post] = received;
    if (!post) throw new Error('no post');
    expect(post.headers['webhook-id']).toBe(deliveryId);
    expect(JSON.parse(post.body)).toEqual({ requestId, href, request: { template: templateId, data: { title: 'Later' }, cache: false, webhookUrl }, templateVersion: 2 });
    const orgId = (await app.runtime.eventStore.readStream(renderStream(requestId)))[0]?.metadata.orgId ?? '';
    const { secret } = await app.runtime.services.accounts.webhookSecret(orgId);
    expect(post.headers['webhook-signature']).toBe(`v1,${expectedSignature(secret, post)}`);
    expect(verifyWithLibrary(secret, post)).toEqual(JSON.parse(post.body));

    // The new worker ran the attempt that delivered it, and the render's workflow then finished.
    const handle = new Client({ connection: temporal }).workflow.getHandle(requestId);
    expect(await handle.result()).toEqual({ status: 'done', file: expect.objectContaining({ storageKey: expect.any(String), contentType: expect.any(String) }), position: expect.any(Number) });
    const history = (await handle.fetchHistory()).events ?? [];
    const scheduled = history.find((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'deliverWebhook');
    const started = history.find((event) => String(event.activityTaskStartedEventAttributes?.scheduledEventId) === String(scheduled?.eventId));
    expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(failed.length + 1);
    expect(started?.activityTaskStartedEventAttributes?.identity?.startsWith(`${second.child.pid}@`)).toBe(true);

    const detail = await waitFor(
      'the result to show the delivery',
      async () => {
        const body = (await app.call('GET', `/api/v2/results/${requestId}`)).body;
        return body?.webhook?.status === 'delivered' ? body : undefined;
      },
      30_000,
    );
    expect(detail.webhook).toMatchObject({ url: webhookUrl, attempts: failed.length + 1, lastStatusCode: 204 });
  });
});
