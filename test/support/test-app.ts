import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../infrastructure/config/config.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { createRuntime, type Runtime } from '../../interfaces/composition-root.js';
import { createHttpApp } from '../../interfaces/rest/app.js';
import { listen } from '../../interfaces/rest/http-server.js';
import { expect, inject } from 'vitest';
import { createTestDatabase } from './database.js';
import { apiCaller, type ApiCall } from './http-call.js';
import { workflowBundleOf } from './workflow-bundles.js';

export interface TestApp {
  readonly url: string;
  /** A key of the bootstrap organization. */
  readonly apiKey: string;
  readonly runtime: Runtime;
  /** Opens another organization and returns one of its keys. */
  newOrganizationKey(): Promise<string>;
  readonly call: ApiCall;
  /** A file by its href, fetched through this app (hrefs name the configured public base URL); fails the test unless 200. */
  download(href: string): Promise<Buffer>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  readonly env?: Record<string, string>;
  /**
   * 'worker' renders for real: the run's Temporal server, Chromium, a task queue of this app's own.
   * 'client' starts workflows on that queue but leaves the work to worker processes the test runs.
   */
  readonly rendering?: 'off' | 'worker' | 'client';
  /** The built studio to serve at /studio, as `npm start` does. */
  readonly studioDir?: string;
  /** Collects every line the service logs, at its most talkative, for a test to search. */
  readonly logLines?: string[];
}

/** The whole service on a fresh database and a free port, driven over real HTTP. */
export const startTestApp = async ({ env = {}, rendering = 'off', studioDir, logLines }: TestAppOptions = {}): Promise<TestApp> => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-service-e2e-'));
  const apiKey = `rk_test_${randomBytes(16).toString('hex')}`;
  const config = loadConfig({
    DATABASE_URL: await createTestDatabase(),
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    BOOTSTRAP_API_KEY: apiKey,
    TEMPORAL_ADDRESS: inject('temporalAddress') ?? '',
    TEMPORAL_TASK_QUEUE: `test-${randomBytes(6).toString('hex')}`,
    // Tests drive the service faster than a client on the default plan may; rate-limits.e2e sets limits of its own.
    RATE_LIMIT_DEFAULT: '0',
    ...env,
  });
  const logger = logLines ? createLogger('trace', { write: (line: string) => void logLines.push(line) }) : createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  const runtime = await createRuntime(config, logger, {
    runProjections: true,
    rendering,
    workflowBundle: rendering === 'worker' ? await workflowBundleOf(false) : undefined,
  });
  await runtime.services.accounts.ensureBootstrapKey(apiKey);
  const server = await listen(createHttpApp({ services: runtime.services, logger, bodyLimit: config.BODY_LIMIT, studioDir }), 0, '127.0.0.1');

  const call = apiCaller(server.url, apiKey);

  return {
    url: server.url,
    apiKey,
    runtime,
    call,
    async download(href) {
      const { pathname, search } = new URL(href);
      const response = await fetch(`${server.url}${pathname}${search}`);
      expect(response.status, href).toBe(200);
      return Buffer.from(await response.arrayBuffer());
    },
    async newOrganizationKey() {
      const orgId = await runtime.services.accounts.openOrganization({ name: 'other' });
      return (await runtime.services.accounts.issueApiKey(orgId, { label: 'test' })).key;
    },
    async close() {
      await server.close(1000);
      await runtime.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
};
