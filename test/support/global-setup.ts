import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../infrastructure/postgres/embedded-postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the PostgreSQL server tests create their databases on; absent in unit-only runs. */
    databaseAdminUrl?: string;
  }
}

/**
 * One PostgreSQL for the whole run (TEST_DATABASE_URL, or an embedded server in a fresh folder);
 * each test file creates its own database on it with createTestDatabase().
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  const selectedTiers = project.vitest.projects.map((selected) => selected.name);
  if (selectedTiers.every((name) => name === 'unit')) return;

  const given = process.env.TEST_DATABASE_URL;
  if (given) {
    project.provide('databaseAdminUrl', given);
    return;
  }

  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-service-test-'));
  // The server may run as user postgres, which must be able to enter this folder.
  await chmod(dataDir, 0o755);
  const server = await startEmbeddedPostgres({ dataDir });
  project.provide('databaseAdminUrl', server.url);
  return async () => {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}
