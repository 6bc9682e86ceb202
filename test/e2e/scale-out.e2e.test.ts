import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { callApi } from '../support/http-call.js';
import { createTestBucket, type TestBucket } from '../support/s3.js';
import { startServiceProcess, stopServiceProcesses, type ServiceProcess } from '../support/service-process.js';
import { waitFor } from '../support/wait-for.js';
import { killWorkerHost, startWorkerProcess, stopWorkerProcesses, type WorkerProcess } from '../support/worker-process.js';

/**
 * The scaled topology as separate OS processes: two `npm run api` and two `npm run worker`, each
 * with a data folder of its own, sharing only PostgreSQL, Temporal and an S3 bucket (MinIO).
 */
let bucket: TestBucket;
let apis: ServiceProcess[];
let workers: WorkerProcess[];
let temporal: Connection;
let pageServer: Server;
let pageUrl: string;
const dataDirs: string[] = [];
const apiKey = `rk_test_${randomBytes(16).toString('hex')}`;
const taskQueue = `scale-${randomBytes(6).toString('hex')}`;
const hooks: string[] = [];

const call = (api: ServiceProcess, method: string, pathname: string, body?: unknown) => callApi(api.url, apiKey, method, pathname, body);

const dataDir = async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'render-service-scale-'));
  dataDirs.push(dir);
  return dir;
};

beforeAll(async () => {
  bucket = await createTestBucket();
  pageServer = createServer((req, res) => {
    if (req.method === 'POST') {
      hooks.push(req.url ?? '');
      return void res.writeHead(204).end();
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body style="background:#123456"><h1>page</h1></body></html>');
  });
  await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
  const shared = {
    ...bucket.env,
    DATABASE_URL: await createTestDatabase(),
    EVENTSTORE_URL: '',
    TEMPORAL_ADDRESS: inject('temporalAddress') ?? '',
    TEMPORAL_TASK_QUEUE: taskQueue,
    // One signing key and one sealing key for every process: links and webhook secrets work wherever they are read.
    URL_SIGNING_SECRET: randomBytes(24).toString('hex'),
    SECRETS_ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}`,
    ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
    WEBHOOK_RETRY_INITIAL_MS: '200',
  };
  apis = [];
  for (let index = 0; index < 2; index++) apis.push(await startServiceProcess('api', { ...shared, DATA_DIR: await dataDir(), BOOTSTRAP_API_KEY: apiKey }));
  workers = await Promise.all([0, 1].map(async () => startWorkerProcess({ ...shared, DATA_DIR: await dataDir() })));
  temporal = await Connection.connect({ address: inject('temporalAddress') ?? '' });
});
afterAll(async () => {
  await stopWorkerProcesses();
  await stopServiceProcesses();
  await temporal?.close();
  await new Promise((resolve) => pageServer?.close(resolve));
  await bucket?.remove();
  await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** The identities (pid@host) of the workers that ran a workflow's activities and workflow tasks. */
const workerIdentities = async (workflowId: string): Promise<Set<string>> => {
  const history = await new Client({ connection: temporal }).workflow.getHandle(workflowId).fetchHistory();
  const identities = (history.events ?? []).flatMap((event) => [
    event.activityTaskStartedEventAttributes?.identity,
    event.workflowTaskStartedEventAttributes?.identity,
  ]);
  return new Set(identities.filter((identity): identity is string => Boolean(identity)));
};

const htmlTemplate = async (api: ServiceProcess, html: string) => {
  const created = await call(api, 'POST', '/api/v2/my-templates', { name: 'Scale', width: 200, height: 100, editor: 'html-editor' });
  await call(api, 'PUT', `/api/v2/my-templates/${created.body.identifier}/html-editor`, { html });
  return created.body.identifier as string;
};

const doneOn = (api: ServiceProcess, requestId: string) =>
  waitFor(
    `result ${requestId} done`,
    async () => {
      const result = await call(api, 'GET', `/api/v2/results/${requestId}`);
      if (result.body?.status === 'failed') throw new Error(`render failed: ${JSON.stringify(result.body)}`);
      return result.body?.status === 'done' ? result.body : undefined;
    },
    90_000,
  );

describe('two API processes and two workers, sharing PostgreSQL, Temporal and S3 only', () => {
  it('renders every kind, serves the files from the bucket through either API, and spreads the work over both workers', async () => {
    const [first, second] = apis as [ServiceProcess, ServiceProcess];
    const template = await htmlTemplate(first, '<p style="background:#0a0">scaled</p>');
    const image = await call(first, 'POST', '/api/v2/render', { template, outputFormat: 'png' });
    const pdf = await call(second, 'POST', '/api/v2/render', { template, outputFormat: 'pdf' });
    const video = await call(first, 'POST', '/api/v2/my-templates', { name: 'Clip', width: 160, height: 90, editor: 'canvas-html', outputFormat: 'mp4', recordDuration: 1000, fps: 24 });
    const clip = await call(second, 'POST', '/api/v2/render', { template: video.body.identifier });
    const shot = await call(first, 'POST', '/api/v1/screenshots', { url: `${pageUrl}/page`, width: 320, height: 200 });
    expect([image.status, pdf.status, clip.status, shot.status]).toEqual([200, 200, 202, 200]);
    await doneOn(first, clip.body.requestId);

    const files = [
      [image.body.href, 'image/png'],
      [pdf.body.href, 'application/pdf'],
      [(await call(second, 'GET', `/api/v2/results/${clip.body.requestId}`)).body.href, 'video/mp4'],
      [shot.body.href, 'image/png'],
    ] as const;
    for (const [href, type] of files) {
      // The file is in the bucket, so the other API process serves it just as well.
      for (const api of apis) {
        const served = await fetch(String(href).replace(/^https?:\/\/[^/]+/, api.url));
        expect(served.status, String(href)).toBe(200);
        expect(served.headers.get('content-type')).toBe(type);
        expect((await served.arrayBuffer()).byteLength).toBeGreaterThan(100);
      }
    }

    // Webhook renders run as activities on whichever worker polls first: with a dozen, both take some.
    const many = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        call(index % 2 === 0 ? first : second, 'POST', '/api/v2/render', { template, outputFormat: 'png', cache: false, webhookUrl: `${pageUrl}/hook/${randomUUID()}` }),
      ),
    );
    const identities = new Set<string>();
    for (const { body } of many) {
      await doneOn(second, body.requestId);
      for (const identity of await workerIdentities(body.requestId)) identities.add(identity.split('@')[0] ?? identity);
    }
    const workerPids = new Set(workers.map((worker) => String(worker.child.pid)));
    expect([...identities].filter((pid) => workerPids.has(pid)).sort()).toEqual([...workerPids].sort());
  });

  it('loses no render and charges none twice when a worker is killed in the middle of a load', async () => {
    const [first, second] = apis as [ServiceProcess, ServiceProcess];
    const template = await htmlTemplate(first, '<p>slow</p>');
    const before = (await call(first, 'GET', '/api/v1/usage')).body.credits.used as number;
    const accepted = await Promise.all(
      Array.from({ length: 8 }, () => call(second, 'POST', '/api/v2/render', { template, cache: false, waitTime: 1500, webhookUrl: `${pageUrl}/hook/${randomUUID()}` })),
    );
    expect(accepted.every((answer) => answer.status === 200)).toBe(true);
    // Once the first worker has started renders of this load, it goes away like a lost machine.
    const victim = workers[0] as WorkerProcess;
    const underWay = await waitFor('renders under way on the first worker', async () => {
      const results = await Promise.all(accepted.map(({ body }) => workerIdentities(body.requestId)));
      const started = results.filter((identities) => [...identities].some((identity) => identity.startsWith(`${victim.child.pid}@`)));
      return started.length > 0 ? started.length : undefined;
    });
    expect(underWay).toBeGreaterThan(0);
    killWorkerHost(victim);

    for (const { body } of accepted) await doneOn(first, body.requestId);
    const after = (await call(second, 'GET', '/api/v1/usage')).body.credits.used as number;
    expect(after - before).toBe(accepted.length);
    const listed = (await call(first, 'GET', '/api/v2/results?size=50')).body.content.map((item: { identifier: string }) => item.identifier);
    for (const { body } of accepted) expect(listed.filter((id: string) => id === body.requestId)).toHaveLength(1);
  });

  it('reads its own writes on whichever API process served the write', async () => {
    const [, second] = apis as [ServiceProcess, ServiceProcess];
    const created = await call(second, 'POST', '/api/v2/my-templates', { name: 'Read your writes', width: 100, height: 50, editor: 'html-editor' });
    expect(created.status).toBe(200);
    expect((await call(second, 'GET', `/api/v2/my-templates/${created.body.identifier}`)).body.name).toBe('Read your writes');
    const renamed = await call(second, 'PATCH', `/api/v2/my-templates/${created.body.identifier}`, { name: 'Renamed' });
    expect(renamed.body.name).toBe('Renamed');
    expect((await call(second, 'GET', `/api/v2/my-templates/${created.body.identifier}`)).body.name).toBe('Renamed');
  });
});
