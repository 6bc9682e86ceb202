import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTemporalDevServer, type TemporalDevServer } from '../../infrastructure/temporal/dev-server.js';

const logger = pino({ level: 'silent' });

describe('Temporal dev server', () => {
  let dataDir: string;
  let server: TemporalDevServer;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'temporal-dev-'));
    server = await startTemporalDevServer({ dataDir, logger });
  });

  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('accepts a client on the address it reports', async () => {
    expect(server.owned).toBe(true);
    const connection = await Connection.connect({ address: server.address });
    try {
      const client = new Client({ connection });
      const workflowId = `missing-${randomUUID()}`;
      await expect(client.workflow.getHandle(workflowId).describe()).rejects.toThrow(/not found/i);
    } finally {
      await connection.close();
    }
  });

  it('records its address and pid for other processes on the same data folder', async () => {
    const recorded = JSON.parse(await readFile(join(dataDir, 'temporal', 'address'), 'utf8')) as { address: string; pid: number };
    expect(recorded.address).toBe(server.address);
    expect(Number.isInteger(recorded.pid)).toBe(true);
  });

  it('keeps its SQLite database in write-ahead-log mode', async () => {
    // Byte 18 of an SQLite file's header is its write version: 1 with a rollback journal, 2 with a WAL.
    const header = await readFile(join(dataDir, 'temporal', 'temporal.db'));
    expect(header.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0');
    expect(header[18]).toBe(2);
  });

  it('reuses the running server from a second start, which does not stop it', async () => {
    const second = await startTemporalDevServer({ dataDir, logger });
    expect(second.owned).toBe(false);
    expect(second.address).toBe(server.address);
    await second.stop();
    const connection = await Connection.connect({ address: server.address, connectTimeout: 2_000 });
    await connection.close();
  });

  it('stops, removes its address file and frees the port', async () => {
    const { address } = server;
    await server.stop();
    await expect(readFile(join(dataDir, 'temporal', 'address'), 'utf8')).rejects.toThrow(/ENOENT/);
    await expect(Connection.connect({ address, connectTimeout: 1_000 })).rejects.toThrow();
  });
});
