import { randomBytes } from 'node:crypto';
import express, { type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { loadConfig } from '../infrastructure/config/config.js';
import { resolveDatabaseUrl } from '../infrastructure/postgres/embedded-postgres.js';
import { connectTemporal } from '../infrastructure/temporal/temporal-connection.js';
import { createRuntime, type Runtime } from '../interfaces/composition-root.js';
import { createHttpApp } from '../interfaces/rest/app.js';
import { listen } from '../interfaces/rest/http-server.js';
import { serviceApi } from './bench/service-api.js';

/**
 * The runtime's API behind an HTTP server of the bench's on a free loopback port, with `front` (when
 * given) before every route: a client of it holding `apiKey`, made the bootstrap organization's key
 * first if it is not yet (`baseUrl` is the server's address).
 */
export const serveBenchApi = async (runtime: Runtime, { apiKey, stops, front, timeoutMs }: { apiKey: string; stops: (() => Promise<unknown>)[]; front?: RequestHandler; timeoutMs?: number }) => {
  await runtime.services.accounts.ensureBootstrapKey(apiKey);
  const app = createHttpApp({ services: runtime.services, logger: runtime.logger, bodyLimit: runtime.config.BODY_LIMIT });
  const server = await listen(front ? express().use(front, app) : app, 0, '127.0.0.1');
  stops.push(() => server.close(1000));
  return serviceApi(server.url, apiKey, { timeoutMs });
};

/**
 * The whole service in the bench's own process (API, projections, a worker) on a fresh embedded
 * PostgreSQL and Temporal dev server under `dataDir`, with credits enough for any run, served as
 * serveBenchApi serves it. Each start pushes its stop onto `stops`, so the caller tears everything
 * down in reverse.
 */
export const startBenchService = async ({ dataDir, logger, stops, front, timeoutMs }: { dataDir: string; logger: Logger; stops: (() => Promise<unknown>)[]; front?: RequestHandler; timeoutMs?: number }) => {
  const database = await resolveDatabaseUrl({ dataDir, logger });
  stops.push(() => database.stop());
  // The bench's own handle on the dev server: it reads workflow histories for its breakdowns.
  const temporal = await connectTemporal({ namespace: 'default', dataDir, logger });
  stops.push(() => temporal.close());
  const apiKey = `rk_bench_${randomBytes(16).toString('hex')}`;
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    EVENTSTORE_URL: '',
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: `bench-${randomBytes(4).toString('hex')}`,
    PORT: '0',
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: '',
    BOOTSTRAP_API_KEY: apiKey,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    DEFAULT_PLAN_CREDITS: '1000000',
    // Per-key limits counted as deployed (every request goes through the shared store), set high enough that the bench is never refused.
    RATE_LIMIT_DEFAULT: '1000000000',
  });
  const runtime = await createRuntime(config, logger, { runProjections: true, rendering: 'worker' });
  stops.push(() => runtime.close());
  return { config, runtime, temporal, apiKey, api: await serveBenchApi(runtime, { apiKey, stops, front, timeoutMs }) };
};
