import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer, connect, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../infrastructure/system/free-port.js';
import { createTestDatabase } from '../support/database.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { startWorkerProcess, stopWorkerProcesses } from '../support/worker-process.js';
import { waitFor } from '../support/wait-for.js';

/*
 * The operations endpoints of a real service: a worker in this process renders and delivers a
 * webhook to a receiver here, then /metrics is scraped as Prometheus would. Readiness is watched
 * failing for real: the event store closed under a running service, and Temporal behind a proxy
 * that goes away.
 */

let app: TestApp;
let receiver: Server;
let receiverUrl: string;
const temporalMetricsPort = await freePort();

/** The value of one series in a Prometheus text exposition, or undefined when it is absent. */
const sample = (text: string, name: string, labels: Record<string, string> = {}): number | undefined => {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1], pair[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
};

const scrape = async () => {
  const response = await fetch(`${app.url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
};

beforeAll(async () => {
  receiver = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  app = await startTestApp({
    rendering: 'worker',
    env: { ALLOWED_PRIVATE_HOSTS: '127.0.0.1', TEMPORAL_METRICS_PORT: String(temporalMetricsPort) },
  });
});

afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
});

describe('/metrics', () => {
  it('shows HTTP requests by route pattern, renders by outcome, the pool, projection lag and webhook attempts', { timeout: 90_000 }, async () => {
    const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'Metered', width: 120, height: 60, editor: 'html-editor' } });
    const templateId = created.body.identifier as string;
    await app.call('PUT', `/api/v2/my-templates/${templateId}/html-editor`, { body: { html: '<h1>{{title}}</h1>', css: '' } });
    const rendered = await app.call('POST', '/api/v2/render', { body: { template: templateId, data: { title: 'Hi' }, outputFormat: 'jpeg', cache: false, webhookUrl: receiverUrl } });
    expect(rendered.status, JSON.stringify(rendered.body)).toBe(200);
    await app.call('GET', `/api/v2/results/${rendered.body.requestId as string}`);

    const text = await waitFor('the webhook attempt in /metrics', async () => {
      const body = await scrape();
      return (sample(body, 'render_service_webhook_attempts_total', { outcome: 'delivered' }) ?? 0) >= 1 ? body : undefined;
    });

    expect(sample(text, 'render_service_http_requests_total', { method: 'POST', route: '/api/v2/render', status: '200' })).toBe(1);
    expect(sample(text, 'render_service_http_request_duration_seconds_count', { method: 'POST', route: '/api/v2/render', status: '200' })).toBe(1);
    // Ids never become labels: the result's route is its pattern.
    expect(sample(text, 'render_service_http_requests_total', { method: 'GET', route: '/api/v2/results/:identifier', status: '200' })).toBe(1);
    expect(text).not.toContain(rendered.body.requestId as string);

    expect(sample(text, 'render_service_renders_total', { kind: 'image', format: 'jpeg', outcome: 'done' })).toBe(1);
    expect(sample(text, 'render_service_render_duration_seconds_count', { kind: 'image', format: 'jpeg', outcome: 'done' })).toBe(1);

    expect(sample(text, 'render_service_pool_queue_depth')).toBe(0);
    expect(sample(text, 'render_service_pool_pages_busy')).toBe(0);
    expect(sample(text, 'render_service_pool_capacity')).toBeGreaterThan(0);
    expect(sample(text, 'render_service_pool_browser_restarts_total')).toBe(0);
    expect(sample(text, 'render_service_pool_browser_crashes_total')).toBe(0);

    for (const projection of app.runtime.projections.runners.map((runner) => runner.name)) {
      expect(sample(text, 'render_service_projection_lag_positions', { projection }), projection).toBeGreaterThanOrEqual(0);
    }
    expect(app.runtime.projections.runners.length).toBeGreaterThan(0);
    expect(sample(text, 'render_service_process_cpu_seconds_total')).toBeGreaterThan(0);
  });

  it("includes the Temporal SDK's own metrics, also served on their own port when one is configured", async () => {
    const ownPort = await waitFor('Temporal SDK metrics on their port', async () => {
      const body = await (await fetch(`http://127.0.0.1:${temporalMetricsPort}/metrics`)).text();
      return body.includes('temporal_') ? body : undefined;
    });
    expect(ownPort).toMatch(/^temporal_\w+/m);
    const text = await scrape();
    expect(text).toMatch(/^temporal_worker_task_slots_available\{/m);
    expect(text).toMatch(/^temporal_request_total\{/m);
    // Both exporters' series in one valid exposition: no metric family appears twice.
    const families = [...text.matchAll(/^# TYPE (\S+)/gm)].map((match) => match[1]);
    expect(new Set(families).size).toBe(families.length);
  });
});

describe('/livez and /readyz', () => {
  it('are 200 while the process and its dependencies answer', async () => {
    expect((await app.call('GET', '/livez', { key: null })).status).toBe(200);
    const ready = await app.call('GET', '/readyz', { key: null });
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ eventStore: { ok: true }, readModels: { ok: true }, projections: { ok: true }, temporal: { ok: true } });
  });

  it('are 503 naming the check once the event store is closed or Temporal is out of reach', { timeout: 90_000 }, async () => {
    // Temporal reached through a proxy this test can take away, as a network partition would.
    const sockets = new Set<Socket>();
    const [temporalHost = '127.0.0.1', temporalPort = ''] = (inject('temporalAddress') ?? '').split(':');
    const proxy: TcpServer = createServer((socket) => {
      const upstream = connect(Number(temporalPort), temporalHost);
      for (const end of [socket, upstream]) {
        sockets.add(end);
        end.on('error', () => {});
        end.on('close', () => sockets.delete(end));
      }
      socket.pipe(upstream).pipe(socket);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const other = await startTestApp({ rendering: 'client', env: { TEMPORAL_ADDRESS: `127.0.0.1:${(proxy.address() as AddressInfo).port}` } });
    try {
      expect((await other.call('GET', '/readyz', { key: null })).status).toBe(200);

      await new Promise((resolve) => {
        proxy.close(resolve);
        for (const socket of sockets) socket.destroy();
      });
      const partitioned = await other.call('GET', '/readyz', { key: null });
      expect(partitioned.status).toBe(503);
      expect(partitioned.body).toMatchObject({ msg: 'Not ready', status: 503 });
      expect(partitioned.body.errors).toEqual([expect.stringMatching(/^temporal: /)]);
      expect((await other.call('GET', '/livez', { key: null })).status).toBe(200);

      await other.runtime.eventStore.close();
      const closed = await other.call('GET', '/readyz', { key: null });
      expect(closed.status).toBe(503);
      expect(closed.body.errors).toEqual(expect.arrayContaining([expect.stringMatching(/^eventStore: /), expect.stringMatching(/^temporal: /)]));
    } finally {
      await other.close();
    }
  });
});

describe('a worker alone (npm run worker)', () => {
  it('serves its own /metrics, /livez and /readyz on WORKER_HTTP_PORT', { timeout: 90_000 }, async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-service-worker-ops-'));
    try {
      const worker = await startWorkerProcess({
        DATABASE_URL: await createTestDatabase(),
        DATA_DIR: dataDir,
        EVENTSTORE_URL: '',
        TEMPORAL_ADDRESS: inject('temporalAddress') ?? '',
        TEMPORAL_TASK_QUEUE: `test-${randomBytes(6).toString('hex')}`,
        HOST: '127.0.0.1',
        WORKER_HTTP_PORT: '0',
      });
      const url = /"operationsUrl":"([^"]+)"/.exec(worker.output())?.[1];
      expect(url, worker.output()).toBeDefined();
      expect((await fetch(`${url}/livez`)).status).toBe(200);
      const ready = await fetch(`${url}/readyz`);
      // A worker follows no projections: the log, the read models and Temporal are what it needs.
      expect(await ready.json()).toEqual({ ok: true, checks: { eventStore: { ok: true }, readModels: { ok: true }, temporal: { ok: true } } });
      const text = await (await fetch(`${url}/metrics`)).text();
      expect(sample(text, 'render_service_pool_capacity')).toBeGreaterThan(0);
      expect(sample(text, 'render_service_http_requests_total', { method: 'GET', route: '/readyz', status: '200' })).toBe(1);
      expect((await fetch(`${url}/api/v2/my-templates`)).status).toBe(404);
    } finally {
      await stopWorkerProcesses();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
