import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { callApi } from '../support/http-call.js';
import { startServiceProcess, stopServiceProcesses, type ServiceProcess } from '../support/service-process.js';
import { startWorkerProcess, stopWorkerProcesses, type WorkerProcess } from '../support/worker-process.js';

/**
 * `npm run api` and `npm run worker` as separate processes: the API starts no Chromium and renders
 * nothing itself; the worker does the rendering. They share PostgreSQL, Temporal and, until an
 * object store is configured, the data folder that holds the files.
 */
let api: ServiceProcess;
let worker: WorkerProcess;
let dataDir: string;
const run = promisify(execFile);
const apiKey = `rk_test_${randomBytes(16).toString('hex')}`;

/** Chromium processes descended from `root` (puppeteer starts the browser in a process group of its own). */
const chromiumProcessesUnder = async (root: number | undefined): Promise<number> => {
  const { stdout } = await run('ps', ['-o', 'pid=,ppid=,comm=', '-e']);
  const processes = stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields.length >= 3)
    .map(([pid, ppid, ...command]) => ({ pid: Number(pid), ppid: Number(ppid), command: command.join(' ') }));
  const descendants = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const process of processes) {
      if (descendants.has(process.ppid) && !descendants.has(process.pid)) {
        descendants.add(process.pid);
        grew = true;
      }
    }
  }
  return processes.filter((process) => descendants.has(process.pid) && /chrom/i.test(process.command)).length;
};

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-service-split-'));
  const shared = {
    DATABASE_URL: await createTestDatabase(),
    DATA_DIR: dataDir,
    EVENTSTORE_URL: '',
    TEMPORAL_ADDRESS: inject('temporalAddress') ?? '',
    TEMPORAL_TASK_QUEUE: `split-${randomBytes(6).toString('hex')}`,
  };
  api = await startServiceProcess('api', { ...shared, BOOTSTRAP_API_KEY: apiKey });
  worker = await startWorkerProcess(shared);
});
afterAll(async () => {
  await stopWorkerProcesses();
  await stopServiceProcesses();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('npm run api beside npm run worker', () => {
  it('serves renders that the worker process makes, and runs no browser itself', async () => {
    const call = (method: string, pathname: string, body?: unknown) => callApi(api.url, apiKey, method, pathname, body);
    const template = (await call('POST', '/api/v2/my-templates', { name: 'Split', width: 200, height: 100, editor: 'html-editor' })).body.identifier as string;
    await call('PUT', `/api/v2/my-templates/${template}/html-editor`, { html: '<p style="background:#0a0">split</p>' });
    const rendered = await call('POST', '/api/v2/render', { template, outputFormat: 'png' });
    expect(rendered.status).toBe(200);
    const file = await fetch(rendered.body.href);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(100);
    // Chromium runs under the worker process only.
    expect(await chromiumProcessesUnder(worker.child.pid)).toBeGreaterThan(0);
    expect(await chromiumProcessesUnder(api.child.pid)).toBe(0);
  });

  it('serves the studio page and its script from the API process, under its CSP, without a key', async () => {
    const page = await fetch(`${api.url}/studio/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const script = (await page.text()).match(/src="(\/studio\/assets\/[^"]+\.js)"/)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${api.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toContain('javascript');
  });
});

