import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { callApi } from '../support/http-call.js';
import { killGroup, startServiceProcess, stopServiceProcesses, type ServiceProcess } from '../support/service-process.js';
import { waitFor } from '../support/wait-for.js';
import { killWorkerHost, startWorkerProcess, stopWorkerProcesses, type WorkerProcess } from '../support/worker-process.js';

/*
 * A 1,000-row batch through `npm run api` and `npm run worker` as real processes, each killed with
 * SIGKILL in turn while the batch runs and started again: the batch still ends with exactly one
 * result per row, each charged once and completed once, and audit verify finds the log and the read
 * models agree. (PostgreSQL and Temporal are the run's shared servers here; the multi-host fault test
 * kills those.)
 */

const ROWS = 1_000;
const run = promisify(execFile);
const apiKey = `rk_test_${randomBytes(16).toString('hex')}`;
let dataDir: string;
let shared: Record<string, string>;
let sql: pg.Pool;
let api: ServiceProcess;
let worker: WorkerProcess;

const call = (method: string, pathname: string, body?: unknown) => callApi(api.url, apiKey, method, pathname, body);

const batchOf = async (id: string) => (await call('GET', `/api/v2/batches/${id}`)).body as { done: number; failed: number; finishedAt: string | null; creditsCharged: number };

/** Waits until the batch has `done` rows or more (or ended), through whichever API process is up. */
const untilDone = (id: string, done: number, timeoutMs = 300_000) =>
  waitFor(
    `${done} rows of the batch done`,
    async () => {
      const batch = await batchOf(id).catch(() => undefined);
      return batch && (batch.done >= done || batch.finishedAt) ? batch : undefined;
    },
    timeoutMs,
  );

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-service-batch-crash-'));
  const databaseUrl = await createTestDatabase();
  shared = {
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    EVENTSTORE_URL: '',
    TEMPORAL_ADDRESS: inject('temporalAddress') ?? '',
    TEMPORAL_TASK_QUEUE: `batch-crash-${randomBytes(6).toString('hex')}`,
    DEFAULT_PLAN_CREDITS: '5000',
  };
  sql = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  api = await startServiceProcess('api', { ...shared, BOOTSTRAP_API_KEY: apiKey });
  worker = await startWorkerProcess(shared);
}, 240_000);

afterAll(async () => {
  await stopWorkerProcesses();
  await stopServiceProcesses();
  await sql?.end();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('a batch whose API and worker are killed in turn', () => {
  it('ends with one result per row, each charged once and completed once, and a clean audit', { timeout: 900_000 }, async () => {
    const template = (await call('POST', '/api/v2/my-templates', { name: 'Crash card', width: 120, height: 60, editor: 'html-editor', outputFormat: 'png' })).body.identifier as string;
    expect((await call('PUT', `/api/v2/my-templates/${template}/html-editor`, { html: '<p>{{title}}</p>' })).status).toBe(200);
    const usedBefore = (await call('GET', '/api/v1/usage')).body.credits.used as number;
    const submitted = await call('POST', '/api/v2/batches', { template, name: 'Crash', rows: Array.from({ length: ROWS }, (_, index) => ({ data: { title: `Row ${index + 1}` } })) });
    expect(submitted.status).toBe(202);
    const batchId = submitted.body.identifier as string;

    await untilDone(batchId, 150);
    killWorkerHost(worker);
    await worker.exited;
    worker = await startWorkerProcess(shared);

    await untilDone(batchId, 450);
    killGroup(api.child);
    await api.exited;
    expect(api.child.signalCode).toBe('SIGKILL');
    api = await startServiceProcess('api', { ...shared, BOOTSTRAP_API_KEY: apiKey });

    const ended = await waitFor(
      'the batch to end',
      async () => {
        const batch = await batchOf(batchId).catch(() => undefined);
        return batch?.finishedAt ? batch : undefined;
      },
      600_000,
    );
    expect(ended).toMatchObject({ done: ROWS, failed: 0, creditsCharged: ROWS });
    expect((await call('GET', '/api/v2/results?batch=Crash&size=1')).body.totalElements).toBe(ROWS);
    expect((await call('GET', '/api/v1/usage')).body.credits.used).toBe(usedBefore + ROWS);

    // Each row's request charged once and completed once, in the log itself.
    const perRequest = async (type: string) =>
      (await sql.query<{ request_id: string; n: string }>(`select data->>'requestId' as request_id, count(*) as n from events where type = $1 group by 1`, [type])).rows;
    const charges = await perRequest('CreditsCharged');
    const completions = await perRequest('RenderCompleted');
    expect(charges.filter((row) => Number(row.n) !== 1)).toEqual([]);
    expect(completions.filter((row) => Number(row.n) !== 1)).toEqual([]);
    expect(completions.length).toBe(ROWS);

    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'interfaces/cli/main.ts', 'audit', 'verify'], { env: { ...process.env, ...shared, LOG_LEVEL: 'warn' }, maxBuffer: 1 << 24 });
    expect(stdout).toMatch(/0 hash chain breaks, 0 ledger differences/);
  });
});
