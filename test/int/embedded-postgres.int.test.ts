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

  /** The server's address as the client reached it: null over a unix socket. */
  const serverAddress = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<{ address: string | null }>('select inet_server_addr()::text as address')).rows[0]?.address;
    } finally {
      await client.end();
    }
  };

  it('is reached over a unix socket in its cluster folder, by this process and by one that reuses it, and still over TCP', async () => {
    const first = await startEmbeddedPostgres({ dataDir });
    try {
      expect(decodeURIComponent(new URL(first.url).hostname)).toBe(path.join(dataDir, 'postgres'));
      expect(await serverAddress(first.url)).toBeNull();
      expect(await serverAddress(await ensureDatabase(first.url, 'over_socket'))).toBeNull();
      expect((await startEmbeddedPostgres({ dataDir })).url).toBe(first.url);
      const tcp = new URL(first.url);
      tcp.hostname = '127.0.0.1';
      expect(await serverAddress(tcp.toString())).toBe('127.0.0.1/32');
    } finally {
      await first.stop();
    }
  });

  it('listens on TCP alone where the socket path would be too long for a socket', async () => {
    const deep = path.join(dataDir, 'a-data-folder-whose-path-is-too-long-for-a-unix-socket-'.repeat(2));
    const server = await startEmbeddedPostgres({ dataDir: deep });
    try {
      expect(new URL(server.url).hostname).toBe('127.0.0.1');
      expect(await serverAddress(server.url)).toBe('127.0.0.1/32');
    } finally {
      await server.stop();
    }
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
