import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { pino } from 'pino';
import { startEmbeddedPostgres } from '../../infrastructure/postgres/embedded-postgres.js';
import { startTemporalDevServer } from '../../infrastructure/temporal/dev-server.js';
import { findMinioBinary, startMinio, type S3TestServer } from './minio-server.js';
import { provideWorkflowBundles } from './provide-workflow-bundles.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the PostgreSQL server tests create their databases on; absent in unit-only runs. */
    databaseAdminUrl?: string;
    /** host:port of the run's Temporal server; e2e runs only. */
    temporalAddress?: string;
    /** The run's S3-compatible server; absent in unit-only runs and when neither MinIO nor TEST_S3_ENDPOINT is there. */
    s3Server?: S3TestServer;
  }
}

/**
 * One PostgreSQL for the whole run (TEST_DATABASE_URL, or an embedded server in a fresh folder);
 * each test file creates its own database on it with createTestDatabase().
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  const selectedTiers = project.vitest.projects.map((selected) => selected.name);
  if (selectedTiers.every((name) => name === 'unit')) return;
  const bundled = provideWorkflowBundles(project);
  // Awaited once the servers are started too; a failure is reported there.
  bundled.catch(() => undefined);
  // Workflow tests bring their own Temporal server and stub every activity: they need no database.
  if (selectedTiers.every((name) => name === 'unit' || name === 'workflow')) return void (await bundled);

  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-service-test-'));
  // The server may run as user postgres, which must be able to enter this folder.
  await chmod(dataDir, 0o755);
  const stops: (() => Promise<void>)[] = [];
  const teardown = async () => {
    for (const stop of stops.reverse()) await stop();
    await rm(dataDir, { recursive: true, force: true });
  };

  try {
    const givenDatabase = process.env.TEST_DATABASE_URL;
    if (givenDatabase) {
      project.provide('databaseAdminUrl', givenDatabase);
    } else {
      const server = await startEmbeddedPostgres({ dataDir });
      stops.push(() => server.stop());
      project.provide('databaseAdminUrl', server.url);
    }

    // TEST_S3_ENDPOINT names a server whose credentials are TEST_S3_ACCESS_KEY_ID and TEST_S3_SECRET_ACCESS_KEY.
    const givenS3 = process.env.TEST_S3_ENDPOINT;
    const minio = findMinioBinary();
    if (givenS3) {
      project.provide('s3Server', {
        endpoint: givenS3,
        region: process.env.TEST_S3_REGION ?? 'us-east-1',
        accessKeyId: process.env.TEST_S3_ACCESS_KEY_ID ?? '',
        secretAccessKey: process.env.TEST_S3_SECRET_ACCESS_KEY ?? '',
      });
    } else if (minio) {
      const { stop, ...server } = await startMinio({ binary: minio, dataDir: path.join(dataDir, 'minio', 'data') });
      stops.push(stop);
      project.provide('s3Server', server);
    }

    // Only the end-to-end tier renders; each test app polls a task queue of its own on this server.
    if (selectedTiers.some((name) => name.startsWith('e2e'))) {
      const givenTemporal = process.env.TEST_TEMPORAL_ADDRESS;
      if (givenTemporal) {
        project.provide('temporalAddress', givenTemporal);
      } else {
        const temporal = await startTemporalDevServer({ dataDir, logger: pino({ level: 'warn' }) });
        stops.push(() => temporal.stop());
        project.provide('temporalAddress', temporal.address);
      }
    }
    await bundled;
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}
