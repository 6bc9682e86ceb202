import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDatabase, startEmbeddedPostgres } from '../../infrastructure/postgres/embedded-postgres.js';

const canConnect = async (url: string) => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
};

describe('startEmbeddedPostgres', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'embedded-postgres-test-'));
    await chmod(dataDir, 0o755);
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('lets a second process on the same data folder reuse the running server', async () => {
    const first = await startEmbeddedPostgres({ dataDir });
    try {
      const second = await startEmbeddedPostgres({ dataDir });
      expect(second.url).toBe(first.url);

      await second.stop();
      expect(await canConnect(first.url)).toBe(true);
    } finally {
      await first.stop();
    }
    expect(await canConnect(first.url)).toBe(false);
  });

  it('starts again on the existing cluster, keeping its databases', async () => {
    const first = await startEmbeddedPostgres({ dataDir });
    const databaseUrl = await ensureDatabase(first.url, 'kept');
    await first.stop();

    const again = await startEmbeddedPostgres({ dataDir });
    try {
      const keptUrl = new URL(databaseUrl);
      keptUrl.port = new URL(again.url).port;
      expect(await canConnect(keptUrl.toString())).toBe(true);
    } finally {
      await again.stop();
    }
  });
});
