import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { loadConfig, type Config } from '../../../infrastructure/config/config.js';
import { bundleWorkflows } from '../../../infrastructure/temporal/temporal-worker.js';
import { createRuntime } from '../../../interfaces/composition-root.js';
import { serveBenchApi } from '../../bench-service.js';
import { print, ratio, seconds, table } from '../measure.js';
import { workflowEvents } from '../workflow-history.js';
import { cpuTotal } from './cpu-meter.js';
import { motionGraphics } from './motion-graphics.js';
import { probedCell, renderThroughRest } from './rest-render.js';
import { FPS, SIZES, type VideoBench } from './video-context.js';
import { startWorkerProcess, stopWorkerProcess } from './worker-processes.js';

/*
 * A 30 s 1080p mp4 through a second API (in this process, a Temporal client only) on a task queue
 * that only worker processes poll: one worker rendering it whole, then one and two workers
 * rendering it in 5 s segments.
 */

const CHUNKED_DURATION_MS = 30_000;

/*
 * Two workers on one two-core machine share the same cores, so splitting cannot beat one worker
 * that already uses both; the pinned runs stand for hosts of one core each, where it can.
 * Speed-up is against the whole render by one worker on the same cores.
 */
const RUNS = [
  { label: '1, whole video', workers: 1, segmentSeconds: '0', pinned: false, baseline: true },
  { label: '1, 5 s segments', workers: 1, segmentSeconds: '5', pinned: false, baseline: false },
  { label: '2, 5 s segments', workers: 2, segmentSeconds: '5', pinned: false, baseline: false },
  { label: '1 on 1 core, whole video', workers: 1, segmentSeconds: '0', pinned: true, baseline: true },
  { label: '2 on 1 core each, 5 s segments', workers: 2, segmentSeconds: '5', pinned: true, baseline: false },
];

/** The settings a second runtime needs to share this one's database, Temporal and key. */
const configEnvOf = (config: Config): Record<string, string> => ({
  DATA_DIR: config.DATA_DIR,
  DATABASE_URL: config.DATABASE_URL ?? '',
  EVENTSTORE_URL: '',
  TEMPORAL_ADDRESS: config.TEMPORAL_ADDRESS ?? '',
  TEMPORAL_NAMESPACE: config.TEMPORAL_NAMESPACE,
  HOST: '127.0.0.1',
  PUBLIC_BASE_URL: '',
  BOOTSTRAP_API_KEY: config.BOOTSTRAP_API_KEY ?? '',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  RATE_LIMIT_DEFAULT: '0',
});

/** How many of the video's segments each worker (by its Temporal identity) produced, from the workflow's history. */
const segmentsByWorker = async (client: Client, requestId: string) => {
  const events = await workflowEvents(client, requestId);
  const segmentIds = new Set(events.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'produceVideoSegment').map((event) => String(event.eventId)));
  const byWorker = new Map<string, number>();
  for (const event of events) {
    const attributes = event.activityTaskStartedEventAttributes;
    if (attributes && segmentIds.has(String(attributes.scheduledEventId))) byWorker.set(attributes.identity ?? '?', (byWorker.get(attributes.identity ?? '?') ?? 0) + 1);
  }
  return byWorker;
};

/** Each run's table row, with its worker processes started before and stopped after it. */
export const measureChunkedRuns = async ({ config, temporal, apiKey, dataDir, logger, stops }: VideoBench): Promise<string[][]> => {
  const taskQueue = `bench-chunked-${randomBytes(4).toString('hex')}`;
  const apiConfig = loadConfig({ ...process.env, ...configEnvOf(config), TEMPORAL_TASK_QUEUE: taskQueue, PORT: '0' });
  const runtime = await createRuntime(apiConfig, logger, { runProjections: true, rendering: 'client' });
  stops.push(() => runtime.close());
  const api = await serveBenchApi(runtime, { apiKey, stops });
  const bundle = path.join(dataDir, 'workflow-bundle.json');
  await writeFile(bundle, JSON.stringify(await bundleWorkflows({ traced: false })));
  const size = SIZES[1];
  const created = await api.call('POST', '/api/v2/my-templates', { name: 'Bench 30 s', ...size, editor: 'canvas-html', outputFormat: 'mp4', recordDuration: CHUNKED_DURATION_MS, fps: FPS });
  const template = String(created.identifier);
  await api.call('PUT', `/api/v2/my-templates/${template}/components`, motionGraphics(size, CHUNKED_DURATION_MS));

  const rows: string[][] = [];
  let wholeMs = Number.NaN;
  for (const run of RUNS) {
    const workers = await Promise.all(
      Array.from({ length: run.workers }, (_, index) =>
        startWorkerProcess({
          DATABASE_URL: config.DATABASE_URL ?? '',
          DATA_DIR: dataDir,
          EVENTSTORE_URL: '',
          TEMPORAL_ADDRESS: config.TEMPORAL_ADDRESS ?? '',
          TEMPORAL_TASK_QUEUE: taskQueue,
          WORKFLOW_BUNDLE_PATH: bundle,
          VIDEO_SEGMENT_SECONDS: run.segmentSeconds,
        }, run.pinned ? index % os.cpus().length : undefined),
      ),
    );
    try {
      const { requestId, wallMs, cpu, probed } = await renderThroughRest(api, dataDir, template, 'mp4');
      if (run.baseline) wholeMs = wallMs;
      const byWorker = await segmentsByWorker(temporal.client, requestId);
      rows.push([
        run.label,
        seconds(wallMs),
        ratio(wallMs / CHUNKED_DURATION_MS),
        ratio(wholeMs / wallMs),
        cpuTotal(cpu).toFixed(1),
        byWorker.size === 0 ? '-' : [...byWorker.values()].join(' + '),
        probedCell(probed),
      ]);
      print(`  ${CHUNKED_DURATION_MS / 1000} s video, ${run.label}: done`);
    } finally {
      await Promise.all(workers.map(stopWorkerProcess));
    }
  }
  return rows;
};

export const printChunkedRuns = (rows: readonly string[][]) => {
  print();
  print(`== a ${CHUNKED_DURATION_MS / 1000} s 1920x1080 mp4 on render worker processes (npm run worker), through REST; cpu s of Chromium, ffmpeg and the node processes (this one and the workers), PostgreSQL and Temporal apart`);
  print(table(['workers', 'wall s', 'x real time', 'speed-up', 'cpu s', 'segments by worker', 'ffprobe'], rows));
  print('  speed-up = the whole render by one worker on the same cores / this run. Unpinned, both workers share the two');
  print('  cores one worker already fills; pinned (taskset), each worker has one core of its own, as on one-core hosts');
};
