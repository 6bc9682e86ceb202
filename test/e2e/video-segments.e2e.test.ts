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
import { callApi } from '../support/http-call.js';
import { probeVideoFile, psnrBetween } from '../support/video-files.js';
import { sleep } from '../support/wait-for.js';
import { killWorkerHost, startWorkerProcess, stopWorkerProcesses, type WorkerProcess } from '../support/worker-process.js';
import { creditMovesOf } from '../support/credit-events.js';

/*
 * Long videos split into segments across render workers that are real processes, as on separate
 * hosts: the API runs in this process as a Temporal client only, so every frame comes from a child.
 */

/** temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED. */
const ACTIVITY_STARTED = 2;
const COMPLETION_TIMEOUT_MS = 150_000;
const WIDTH = 640;
const HEIGHT = 360;
const DURATION_MS = 10_000;
const FPS = 30;
const FRAMES = (DURATION_MS / 1000) * FPS;
/** Five segments of two seconds: enough that both workers take some, and that a kill lands inside one. */
const SEGMENTED = { VIDEO_SEGMENT_SECONDS: '2' };
const WHOLE = { VIDEO_SEGMENT_SECONDS: '0' };

let runtime: Runtime;
let server: RunningHttpServer;
let temporal: Connection;
let client: Client;
let dataDir: string;
let databaseUrl: string;
let apiKey: string;
let publicBaseUrl: string;
let templateId: string;
const taskQueue = `video-segments-${randomBytes(6).toString('hex')}`;

const startWorker = (env: Record<string, string>): Promise<WorkerProcess> =>
  startWorkerProcess({
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    EVENTSTORE_URL: '',
    TEMPORAL_ADDRESS: inject('temporalAddress') ?? '',
    TEMPORAL_TASK_QUEUE: taskQueue,
    PUBLIC_BASE_URL: publicBaseUrl,
    ...env,
  });

const call = (method: string, pathname: string, body?: unknown) => callApi(server.url, apiKey, method, pathname, body);

const outcomeOf = async (requestId: string, workers: readonly WorkerProcess[]) => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    client.workflow.getHandle(requestId).result(),
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the video did not end within ${COMPLETION_TIMEOUT_MS} ms:\n${workers.map((worker) => worker.output()).join('\n---\n')}`)),
        COMPLETION_TIMEOUT_MS,
      );
    }),
  ]).finally(() => clearTimeout(timer));
};

interface ActivityRun {
  readonly name: string;
  readonly input: { index?: number };
  /** Attempt of the last start the history keeps, and the worker that made it. */
  readonly attempt: number;
  readonly identity: string;
  readonly completed: boolean;
}

/** The workflow's activities as its history tells them: one entry per scheduled activity. */
const activityRuns = async (requestId: string): Promise<ActivityRun[]> => {
  const events = (await client.workflow.getHandle(requestId).fetchHistory()).events ?? [];
  const runs = new Map<string, { name: string; input: { index?: number }; attempt: number; identity: string; completed: boolean }>();
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) {
      const payload = scheduled.input?.payloads?.[0]?.data;
      const input = payload ? (JSON.parse(Buffer.from(payload).toString()) as { index?: number }) : {};
      runs.set(String(event.eventId), { name: scheduled.activityType?.name ?? '', input, attempt: 0, identity: '', completed: false });
    }
    const started = event.activityTaskStartedEventAttributes;
    const run = started ? runs.get(String(started.scheduledEventId)) : undefined;
    if (started && run) Object.assign(run, { attempt: started.attempt ?? 0, identity: started.identity ?? '' });
    const completed = event.activityTaskCompletedEventAttributes;
    const done = completed ? runs.get(String(completed.scheduledEventId)) : undefined;
    if (done) done.completed = true;
  }
  return [...runs.values()];
};

const download = async (href: string, name: string) => {
  const file = await fetch(href);
  expect(file.status).toBe(200);
  const local = path.join(dataDir, name);
  await writeFile(local, Buffer.from(await file.arrayBuffer()));
  return local;
};

const renderVideo = async (workers: readonly WorkerProcess[]) => {
  const accepted = await call('POST', '/api/v2/render', { template: templateId, outputFormat: 'mp4', cache: false });
  expect(accepted.status).toBe(202);
  const requestId: string = accepted.body.requestId;
  expect(await outcomeOf(requestId, workers)).toEqual({ status: 'done', file: expect.objectContaining({ storageKey: expect.any(String), contentType: expect.any(String) }), position: expect.any(Number) });
  return { requestId, href: accepted.body.href as string };
};

const creditEventsOf = async (requestId: string) => {
  const orgId = (await runtime.eventStore.readStream(renderStream(requestId)))[0]?.metadata.orgId ?? '';
  return (await creditMovesOf(runtime.eventStore, orgId, requestId)).map((event) => event.type);
};

const progressOf = async (requestId: string) =>
  (await runtime.eventStore.readStream(renderStream(requestId)))
    .filter((event) => event.type === 'RenderProgressed')
    .map((event) => event.data as { framesDone: number; framesTotal: number });

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-service-video-segments-'));
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

  const created = await call('POST', '/api/v2/my-templates', { name: 'Segments', width: WIDTH, height: HEIGHT, editor: 'canvas-html', recordDuration: DURATION_MS, fps: FPS });
  expect(created.status).toBe(200);
  templateId = created.body.identifier;
  // Something moves in every frame, across every segment boundary, so a frame out of place shows.
  const put = await call('PUT', `/api/v2/my-templates/${templateId}/components`, {
    background: '#102030',
    components: [
      { id: 'box', type: 'RECTANGLE', x: 0, y: 120, width: 100, height: 100, fill: '#ffcc00', animation: { keyframes: [{ offset: 0, duration: DURATION_MS, to: { x: WIDTH - 100, rotation: 1080 } }] } },
      { id: 'dot', type: 'CIRCLE', x: 300, y: 0, width: 60, height: 60, fill: '#22cc88', animation: { keyframes: [{ offset: 0, duration: DURATION_MS, to: { y: HEIGHT - 60 }, easing: 'ease-in-out' }] } },
      { id: 'title', type: 'TEXT', x: 20, y: 20, width: 600, height: 60, text: 'Frame by frame', fontSize: 40, color: '#ffffff', animation: { enter: { offset: 1000, duration: 6000, from: { opacity: 0, x: -200 } } } },
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

describe('a long video split into segments across worker processes', () => {
  it('renders its segments on both workers and joins them into the frames one worker renders whole', { timeout: 300_000 }, async () => {
    const workers = [await startWorker(SEGMENTED), await startWorker(SEGMENTED)];
    const segmented = await renderVideo(workers);
    const runs = await activityRuns(segmented.requestId);
    const segments = runs.filter((run) => run.name === 'produceVideoSegment');
    expect(segments.map((run) => run.input.index).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(segments.every((run) => run.completed && run.attempt === 1)).toBe(true);
    // Worker identities are pid@host: both processes took segments.
    const pids = new Set(segments.map((run) => run.identity.split('@')[0]));
    expect(pids).toEqual(new Set(workers.map((worker) => String(worker.child.pid))));
    expect(runs.filter((run) => run.name === 'joinVideoSegments')).toHaveLength(1);
    const progress = await progressOf(segmented.requestId);
    expect(progress.map((entry) => entry.framesDone)).toEqual([...progress.map((entry) => entry.framesDone)].sort((a, b) => a - b));
    expect(progress.at(-1)).toEqual(expect.objectContaining({ framesDone: FRAMES, framesTotal: FRAMES }));

    await stopWorkerProcesses();
    const single = await startWorker(WHOLE);
    const whole = await renderVideo([single]);
    expect((await activityRuns(whole.requestId)).map((run) => run.name)).toContain('produceVideo');

    const [segmentedFile, wholeFile] = [await download(segmented.href, 'segmented.mp4'), await download(whole.href, 'whole.mp4')];
    const [probedSegmented, probedWhole] = [await probeVideoFile(segmentedFile), await probeVideoFile(wholeFile)];
    expect(probedSegmented).toMatchObject({ codec: 'h264', width: WIDTH, height: HEIGHT, frames: FRAMES });
    expect(probedWhole).toMatchObject({ codec: 'h264', width: WIDTH, height: HEIGHT, frames: FRAMES });
    expect(probedSegmented.duration).toBeCloseTo(probedWhole.duration, 2);
    // Frame for frame the same pictures: only the encoder's own noise differs between the two.
    const psnr = await psnrBetween(segmentedFile, wholeFile);
    expect(psnr.min).toBeGreaterThanOrEqual(40);
  });

  it('re-renders only the segment a killed worker held: one segment retried, the video charged once', { timeout: 300_000 }, async () => {
    const [doomed, survivor] = [await startWorker(SEGMENTED), await startWorker(SEGMENTED)];
    const accepted = await call('POST', '/api/v2/render', { template: templateId, outputFormat: 'mp4', cache: false });
    expect(accepted.status).toBe(202);
    const requestId: string = accepted.body.requestId;

    // The kill lands while the doomed worker is in the middle of a segment.
    const deadline = Date.now() + 90_000;
    for (;;) {
      const { raw } = await client.workflow.getHandle(requestId).describe();
      const held = raw.pendingActivities?.find(
        (activity) => activity.activityType?.name === 'produceVideoSegment' && activity.state === ACTIVITY_STARTED && activity.lastWorkerIdentity?.startsWith(`${doomed.child.pid}@`),
      );
      if (held) break;
      if (Date.now() > deadline) throw new Error(`the doomed worker never held a segment:\n${doomed.output()}`);
      await sleep(50);
    }
    killWorkerHost(doomed);
    await doomed.exited;
    expect(doomed.child.signalCode).toBe('SIGKILL');

    expect(await outcomeOf(requestId, [survivor])).toEqual({ status: 'done', file: expect.objectContaining({ storageKey: expect.any(String), contentType: expect.any(String) }), position: expect.any(Number) });
    const segments = (await activityRuns(requestId)).filter((run) => run.name === 'produceVideoSegment');
    expect(segments).toHaveLength(5);
    expect(segments.every((run) => run.completed)).toBe(true);
    // The lost segment's second attempt is the only retry; every other segment was rendered once.
    expect(segments.map((run) => run.attempt).sort()).toEqual([1, 1, 1, 1, 2]);
    expect(await creditEventsOf(requestId)).toEqual(['CreditsCharged']);

    const probed = await probeVideoFile(await download(accepted.body.href, 'after-kill.mp4'));
    expect(probed).toMatchObject({ codec: 'h264', width: WIDTH, height: HEIGHT, frames: FRAMES });
    const progress = (await progressOf(requestId)).map((entry) => entry.framesDone);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(new Set(progress).size).toBe(progress.length);
  });
});
