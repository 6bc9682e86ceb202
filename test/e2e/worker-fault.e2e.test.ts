import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { renderStream } from '../../domain/renders/render-events.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { createRuntime, type Runtime } from '../../interfaces/composition-root.js';
import { createHttpApp } from '../../interfaces/rest/app.js';
import { listen, type RunningHttpServer } from '../../interfaces/rest/http-server.js';
import { createTestDatabase } from '../support/database.js';
import { freePort } from '../../infrastructure/system/free-port.js';
import { killWorkerHost, startWorkerProcess, stopWorkerProcesses, type WorkerProcess } from '../support/worker-process.js';
import { sleep } from '../support/wait-for.js';
import { callApi } from '../support/http-call.js';
import { creditEventsOf, creditMovesOf } from '../support/credit-events.js';

/*
 * The render worker as a real process, killed with SIGKILL while it renders, then replaced. The
 * API runs in this process as a Temporal client only ('client'), so the one worker that can render
 * is the child: the kill really takes the render down, and only the new worker can finish it.
 */

/**
 * Long enough to still be rendering when the kill lands: the page waits this long after loading,
 * and the kill comes 1 s after the attempt started.
 */
const WAIT_TIME_MS = 4_000;
/**
 * produceRender heartbeats with a 10 s heartbeat timeout, so Temporal gives up on the dead worker's
 * attempt about 10 s after the kill and the new worker retries it. Without heartbeats the retry
 * would wait for the 2 min startToClose; this bound fails the test well before that.
 */
const COMPLETION_TIMEOUT_MS = 60_000;
/** temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED (the enum lives in @temporalio/proto). */
const ACTIVITY_STARTED = 2;

let runtime: Runtime;
let server: RunningHttpServer;
let temporal: Connection;
let client: Client;
let receiver: Server;
let receiverUrl: string;
let dataDir: string;
let databaseUrl: string;
let apiKey: string;
/**
 * Every process that writes hrefs must agree on the public base URL: the worker derives the
 * webhook's href itself, from its own PORT (3000) unless PUBLIC_BASE_URL is set.
 */
let publicBaseUrl: string;
const taskQueue = `worker-fault-${randomBytes(6).toString('hex')}`;
const webhookPosts: { body: unknown }[] = [];

const startWorker = (): Promise<WorkerProcess> =>
  startWorkerProcess({
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    // Events in the PostgreSQL the API in this process uses, not an EventStoreDB the environment may name.
    EVENTSTORE_URL: '',
    TEMPORAL_ADDRESS: inject('temporalAddress') ?? '',
    TEMPORAL_TASK_QUEUE: taskQueue,
    // The webhook receiver of this test listens on loopback.
    ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
    PUBLIC_BASE_URL: publicBaseUrl,
  });

const call = (method: string, pathname: string, body?: unknown) => callApi(server.url, apiKey, method, pathname, body);

/** Resolves with the produceRender activity once a worker has started it; bounded. */
const produceStarted = async (requestId: string) => {
  const handle = client.workflow.getHandle(requestId);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { raw } = await handle.describe();
    const produce = raw.pendingActivities?.find((activity) => activity.activityType?.name === 'produceRender');
    if (produce?.state === ACTIVITY_STARTED) return produce;
    if (Date.now() > deadline) throw new Error(`produceRender not started after 60 s: ${JSON.stringify(raw.pendingActivities)}`);
    await sleep(100);
  }
};

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-service-worker-fault-'));
  databaseUrl = await createTestDatabase();
  apiKey = `rk_test_${randomBytes(16).toString('hex')}`;
  const temporalAddress = inject('temporalAddress') ?? '';

  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      webhookPosts.push({ body: JSON.parse(body) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const port = await freePort();
  publicBaseUrl = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: publicBaseUrl,
    BOOTSTRAP_API_KEY: apiKey,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    // The API checks the webhookUrl too, before it accepts the render.
    ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
  });
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  runtime = await createRuntime(config, logger, { runProjections: true, rendering: 'client' });
  await runtime.services.accounts.ensureBootstrapKey(apiKey);
  server = await listen(createHttpApp({ services: runtime.services, logger, bodyLimit: config.BODY_LIMIT }), port, '127.0.0.1');

  temporal = await Connection.connect({ address: temporalAddress });
  client = new Client({ connection: temporal });
});

afterAll(async () => {
  await stopWorkerProcesses();
  await server?.close(1000);
  await runtime?.close();
  await temporal?.close();
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('a render worker killed in the middle of a render', () => {
  it('completes the render once after a new worker starts: charged once, stored, listed once, webhook posted', { timeout: 180_000 }, async () => {
    const created = await call('POST', '/api/v2/my-templates', { name: 'Fault', width: 200, height: 100, editor: 'html-editor' });
    expect(created.status).toBe(200);
    const templateId: string = created.body.identifier;
    const content = await call('PUT', `/api/v2/my-templates/${templateId}/html-editor`, {
      html: '<h1>{{title}}</h1>',
      css: 'body{background:#00ff00} h1{margin:0;font:20px "DejaVu Sans"}',
    });
    expect(content.status).toBe(200);

    const first = await startWorker();
    const data = { title: 'Survives a crash' };
    const accepted = await call('POST', '/api/v2/render', { template: templateId, data, outputFormat: 'png', waitTime: WAIT_TIME_MS, webhookUrl: receiverUrl });
    expect(accepted.status).toBe(200);
    const requestId: string = accepted.body.requestId;
    const href: string = accepted.body.href;

    const attempt = await produceStarted(requestId);
    expect(attempt.attempt).toBe(1);
    // Into the page's wait, so the kill lands on a render in progress, not on one about to start.
    await sleep(1_000);
    killWorkerHost(first);
    await first.exited;
    expect(first.child.signalCode).toBe('SIGKILL');
    const [requested, ...afterKill] = await runtime.eventStore.readStream(renderStream(requestId));
    expect(requested?.type).toBe('RenderRequested');
    expect(afterKill).toEqual([]);

    const second = await startWorker();
    const handle = client.workflow.getHandle(requestId);
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      handle.result(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the render did not complete within ${COMPLETION_TIMEOUT_MS} ms of the restart:\n${second.output()}`)), COMPLETION_TIMEOUT_MS);
      }),
    ]).finally(() => clearTimeout(timer));
    expect(outcome).toEqual({ status: 'done', file: expect.objectContaining({ storageKey: expect.any(String), contentType: expect.any(String) }), position: expect.any(Number) });

    // The killed attempt never finished: the history holds only the second one, which did.
    const events = (await handle.fetchHistory()).events ?? [];
    const produceScheduled = new Set(
      events.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'produceRender').map((event) => String(event.eventId)),
    );
    const produceAttempts = events.flatMap((event) => {
      const started = event.activityTaskStartedEventAttributes;
      return started && produceScheduled.has(String(started.scheduledEventId)) ? [started.attempt] : [];
    });
    expect(produceAttempts).toEqual([2]);

    const detail = await call('GET', `/api/v2/results/${requestId}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ identifier: requestId, status: 'done', width: 200, height: 100 });

    const orgId = requested?.metadata.orgId ?? '';
    const forRequest = await creditMovesOf(runtime.eventStore, orgId, requestId);
    expect(forRequest.map((event) => event.type)).toEqual(['CreditsCharged']);
    expect((await call('GET', '/api/v1/usage')).body.credits.used).toBe(1);

    const listed = await call('GET', '/api/v2/results?size=50');
    expect(listed.body.content.filter((item: { identifier: string }) => item.identifier === requestId)).toHaveLength(1);
    expect(listed.body.totalElements).toBe(1);

    const renderEvents = (await runtime.eventStore.readStream(renderStream(requestId))).map((event) => event.type);
    // The workflow ends after the webhook activity, which records its delivery on the render's stream.
    expect(renderEvents).toEqual(['RenderRequested', 'RenderCompleted', 'WebhookDelivered']);

    expect(href.startsWith(`${server.url}/`)).toBe(true);
    const file = await fetch(href);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
    const { data: pixels, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([200, 100]);
    // Bottom-right corner is the page background: the template really rendered.
    const corner = ((info.height - 1) * info.width + (info.width - 1)) * info.channels;
    expect([pixels[corner], pixels[corner + 1], pixels[corner + 2]]).toEqual([0, 255, 0]);

    // The workflow ends after the webhook activity, so the POST has arrived by now.
    expect(webhookPosts).toEqual([
      { body: { requestId, href, request: { template: templateId, data, outputFormat: 'png', waitTime: WAIT_TIME_MS, webhookUrl: receiverUrl }, templateVersion: 2 } },
    ]);
  });

  it('answers a client waiting for a synchronous render killed mid-way, once a new worker replays it: charged once', { timeout: 180_000 }, async () => {
    await stopWorkerProcesses();
    const created = await call('POST', '/api/v2/my-templates', { name: 'Sync fault', width: 120, height: 60, editor: 'html-editor' });
    const templateId: string = created.body.identifier;
    await call('PUT', `/api/v2/my-templates/${templateId}/html-editor`, { html: '<p>sync</p>', css: 'body{background:#0000ff}' });
    const orgId = (await runtime.services.accounts.authenticate(apiKey))?.orgId ?? '';
    const chargedBefore = (await creditEventsOf(runtime.eventStore, orgId)).filter((event) => event.type === 'CreditsCharged').length;

    const first = await startWorker();
    // No webhook: the client waits for the file, and the render runs as local activities in one workflow task.
    const waiting = call('POST', '/api/v2/render', { template: templateId, outputFormat: 'png', waitTime: WAIT_TIME_MS, cache: false });
    const deadline = Date.now() + 60_000;
    let charges = chargedBefore;
    while (charges === chargedBefore) {
      if (Date.now() > deadline) throw new Error(`the render was never charged:\n${first.output()}`);
      await sleep(100);
      charges = (await creditEventsOf(runtime.eventStore, orgId)).filter((event) => event.type === 'CreditsCharged').length;
    }
    // Charged, now in the page's wait: the kill lands on the render itself.
    await sleep(1_000);
    killWorkerHost(first);
    await first.exited;

    await startWorker();
    const answer = await waiting;
    expect(answer.status).toBe(200);
    const requestId: string = answer.body.requestId;
    const forRequest = await creditMovesOf(runtime.eventStore, orgId, requestId);
    expect(forRequest.map((event) => event.type)).toEqual(['CreditsCharged']);
    const renderEvents = (await runtime.eventStore.readStream(renderStream(requestId))).map((event) => event.type);
    expect(renderEvents).toEqual(['RenderRequested', 'RenderCompleted']);
    const file = await fetch(answer.body.href);
    expect(file.status).toBe(200);
  });
});
