import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { renderStream } from '../../domain/renders/render-events.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { freePort } from '../../infrastructure/system/free-port.js';
import { createRuntime, type Runtime } from '../../interfaces/composition-root.js';
import { createHttpApp } from '../../interfaces/rest/app.js';
import { listen, type RunningHttpServer } from '../../interfaces/rest/http-server.js';
import { createTestDatabase } from '../support/database.js';
import { probeVideoFile } from '../support/video-files.js';
import { killWorkerHost, startWorkerProcess, stopWorkerProcesses, type WorkerProcess } from '../support/worker-process.js';
import { sleep, waitFor } from '../support/wait-for.js';
import { callApi } from '../support/http-call.js';
import { creditMovesOf } from '../support/credit-events.js';

/*
 * Video render workers as real processes. The API runs in this process as a Temporal client only,
 * so the only worker that can render is a child: killing it really takes the video down, and only
 * a new worker can finish it.
 */

/** temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED (the enum lives in @temporalio/proto). */
const ACTIVITY_STARTED = 2;
/**
 * produceVideo heartbeats with a 10 s heartbeat timeout: the retry starts about 10 s after the kill
 * and renders the whole video again. Without heartbeats it would wait for the 30 min startToClose.
 */
const COMPLETION_TIMEOUT_MS = 150_000;
const WIDTH = 640;
const HEIGHT = 360;
const DURATION_MS = 10_000;
const FPS = 30;

let runtime: Runtime;
let server: RunningHttpServer;
let temporal: Connection;
let client: Client;
let dataDir: string;
let databaseUrl: string;
let apiKey: string;
let publicBaseUrl: string;
let templateId: string;
const taskQueue = `video-fault-${randomBytes(6).toString('hex')}`;

const startWorker = (env: Record<string, string> = {}): Promise<WorkerProcess> =>
  startWorkerProcess({
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    // Events in the PostgreSQL the API in this process uses, not an EventStoreDB the environment may name.
    EVENTSTORE_URL: '',
    TEMPORAL_ADDRESS: inject('temporalAddress') ?? '',
    TEMPORAL_TASK_QUEUE: taskQueue,
    PUBLIC_BASE_URL: publicBaseUrl,
    ...env,
  });

const call = (method: string, pathname: string, body?: unknown) => callApi(server.url, apiKey, method, pathname, body);

/** Resolves once the result shows frames captured: the kill then lands in the middle of the video. */
const capturing = async (requestId: string) => {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const detail = await call('GET', `/api/v2/results/${requestId}`);
    if (detail.body.progress?.framesDone > 0) return detail.body.progress as { framesDone: number; framesTotal: number };
    if (detail.body.status !== 'pending') throw new Error(`the video ended before the kill: ${JSON.stringify(detail.body)}`);
    if (Date.now() > deadline) throw new Error(`no frames captured after 90 s: ${JSON.stringify(detail.body)}`);
    await sleep(100);
  }
};

const produceAttempts = async (requestId: string) => {
  const events = (await client.workflow.getHandle(requestId).fetchHistory()).events ?? [];
  const scheduled = new Set(
    events.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'produceVideo').map((event) => String(event.eventId)),
  );
  return events.flatMap((event) => {
    const started = event.activityTaskStartedEventAttributes;
    return started && scheduled.has(String(started.scheduledEventId)) ? [started.attempt] : [];
  });
};

const outcomeOf = async (requestId: string, worker: WorkerProcess) => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    client.workflow.getHandle(requestId).result(),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the video did not end within ${COMPLETION_TIMEOUT_MS} ms:\n${worker.output()}`)), COMPLETION_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
};

const creditEventsOf = async (orgId: string, requestId: string) =>
  (await creditMovesOf(runtime.eventStore, orgId, requestId)).map((event) => ({ type: event.type, amount: (event.data as { amount?: number }).amount }));

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-service-video-fault-'));
  databaseUrl = await createTestDatabase();
  apiKey = `rk_test_${randomBytes(16).toString('hex')}`;
  const temporalAddress = inject('temporalAddress') ?? '';
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
  });
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  runtime = await createRuntime(config, logger, { runProjections: true, rendering: 'client' });
  await runtime.services.accounts.ensureBootstrapKey(apiKey);
  server = await listen(createHttpApp({ services: runtime.services, logger, bodyLimit: config.BODY_LIMIT }), port, '127.0.0.1');
  temporal = await Connection.connect({ address: temporalAddress });
  client = new Client({ connection: temporal });

  const created = await call('POST', '/api/v2/my-templates', { name: 'Fault', width: WIDTH, height: HEIGHT, editor: 'canvas-html', recordDuration: DURATION_MS, fps: FPS });
  expect(created.status).toBe(200);
  templateId = created.body.identifier;
  const put = await call('PUT', `/api/v2/my-templates/${templateId}/components`, {
    background: '#204060',
    components: [
      { id: 'box', type: 'RECTANGLE', x: 0, y: 100, width: 120, height: 120, fill: '#ffcc00', animation: { keyframes: [{ offset: 0, duration: DURATION_MS, to: { x: WIDTH - 120, rotation: 720 } }] } },
      { id: 'title', type: 'TEXT', x: 20, y: 20, width: 600, height: 60, text: 'Survives a crash', fontSize: 40, animation: { enter: { offset: 0, duration: 2000, from: { opacity: 0, y: -60 } } } },
    ],
  });
  expect(put.status).toBe(200);
});

afterEach(async () => {
  await stopWorkerProcesses();
});

afterAll(async () => {
  await stopWorkerProcesses();
  await server?.close(1000);
  await runtime?.close();
  await temporal?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('a video render worker killed in the middle of a video', () => {
  it('finishes the video once on a new worker: charged once, every frame, listed once', { timeout: 300_000 }, async () => {
    // A video rendered whole: test/e2e/video-segments.e2e.test.ts covers one split into segments.
    const first = await startWorker({ VIDEO_SEGMENT_SECONDS: '0' });
    const accepted = await call('POST', '/api/v2/render', { template: templateId, outputFormat: 'mp4', cache: false });
    expect(accepted.status).toBe(202);
    const requestId: string = accepted.body.requestId;

    const reached = await capturing(requestId);
    expect(reached.framesDone).toBeLessThan(reached.framesTotal);
    const { raw } = await client.workflow.getHandle(requestId).describe();
    expect(raw.pendingActivities?.find((activity) => activity.activityType?.name === 'produceVideo')?.state).toBe(ACTIVITY_STARTED);
    killWorkerHost(first);
    await first.exited;
    expect(first.child.signalCode).toBe('SIGKILL');

    const second = await startWorker({ VIDEO_SEGMENT_SECONDS: '0' });
    expect(await outcomeOf(requestId, second)).toEqual({ status: 'done', file: expect.objectContaining({ storageKey: expect.any(String), contentType: expect.any(String) }), position: expect.any(Number) });
    // The killed attempt never finished: only the second one did.
    expect(await produceAttempts(requestId)).toEqual([2]);

    const detail = await call('GET', `/api/v2/results/${requestId}`);
    expect(detail.body).toMatchObject({ identifier: requestId, status: 'done', width: WIDTH, height: HEIGHT, credits: 100 });
    const orgId = (await runtime.eventStore.readStream(renderStream(requestId)))[0]?.metadata.orgId ?? '';
    expect(await creditEventsOf(orgId, requestId)).toEqual([{ type: 'CreditsCharged', amount: 100 }]);
    expect((await call('GET', '/api/v1/usage')).body.credits.used).toBe(100);
    const listed = await call('GET', '/api/v2/results?size=50');
    expect(listed.body.content.filter((item: { identifier: string }) => item.identifier === requestId)).toHaveLength(1);

    // Progress the second attempt reported from frame 0 again was not recorded until it passed the first's.
    const types = (await runtime.eventStore.readStream(renderStream(requestId))).map((event) => event.type);
    expect(types.filter((type) => type !== 'RenderProgressed')).toEqual(['RenderRequested', 'RenderCompleted']);
    const progress = (await runtime.eventStore.readStream(renderStream(requestId)))
      .filter((event) => event.type === 'RenderProgressed')
      .map((event) => (event.data as { framesDone: number }).framesDone);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(new Set(progress).size).toBe(progress.length);

    const file = await fetch(accepted.body.href);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('video/mp4');
    const local = path.join(dataDir, 'fault.mp4');
    await writeFile(local, Buffer.from(await file.arrayBuffer()));
    const probed = await probeVideoFile(local);
    expect(probed).toMatchObject({ codec: 'h264', width: WIDTH, height: HEIGHT, frames: (DURATION_MS / 1000) * FPS });
    expect(probed.duration).toBeCloseTo(DURATION_MS / 1000, 1);
  });

  it('ends failed and refunded when no worker can encode it', { timeout: 180_000 }, async () => {
    // A worker whose ffmpeg is broken: every attempt fails, as on a machine without a working encoder.
    const broken = await startWorker({ FFMPEG_PATH: '/bin/false' });
    const before = (await call('GET', '/api/v1/usage')).body.credits.used as number;
    const accepted = await call('POST', '/api/v2/render', { template: templateId, outputFormat: 'webm', duration: 1000, cache: false });
    expect(accepted.status).toBe(202);
    const requestId: string = accepted.body.requestId;
    expect(await outcomeOf(requestId, broken)).toMatchObject({ status: 'failed', code: 'failed' });
    // History keeps the started event of the last attempt only: the third, which failed like the others.
    expect(await produceAttempts(requestId)).toEqual([3]);

    const detail = await call('GET', `/api/v2/results/${requestId}`);
    expect(detail.body).toMatchObject({ status: 'failed', credits: 0, failureReason: expect.stringMatching(/ffmpeg/) });
    const orgId = (await runtime.eventStore.readStream(renderStream(requestId)))[0]?.metadata.orgId ?? '';
    expect((await creditEventsOf(orgId, requestId)).map((event) => event.type)).toEqual(['CreditsCharged', 'CreditsRefunded']);
    // The refund was appended by the worker process: this process's read models show it once they follow it there.
    await waitFor('the refund in the usage', async () => ((await call('GET', '/api/v1/usage')).body.credits.used === before ? true : undefined));
    expect((await fetch(accepted.body.href)).status).toBe(404);
  });
});
