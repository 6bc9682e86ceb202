import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../infrastructure/config/config.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { bootstrapApiKey, DEV_ORG_ID } from '../../interfaces/cli/bootstrap.js';
import { createRuntime, type Runtime } from '../../interfaces/composition-root.js';
import { createTestDatabase } from '../support/database.js';

let runtime: Runtime;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-service-devkey-'));
  const config = loadConfig({ DATABASE_URL: await createTestDatabase(), DATA_DIR: dataDir, PORT: '0' });
  runtime = await createRuntime(config, createLogger('silent'), { runProjections: true, rendering: 'off' });
});

afterAll(async () => {
  await runtime?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('the development key npm start prints', () => {
  it('is new on every start, and the keys of earlier starts stop working', async () => {
    const { accounts } = runtime.services;
    const first = await bootstrapApiKey(accounts, undefined);
    const second = await bootstrapApiKey(accounts, undefined);
    expect(first.key).not.toBeNull();
    expect(second.key).not.toBe(first.key);
    expect(await accounts.authenticate(second.key as string)).toMatchObject({ orgId: DEV_ORG_ID });
    expect(await accounts.authenticate(first.key as string)).toBeNull();
    const active = (await accounts.listKeys(DEV_ORG_ID)).filter((key) => !key.revoked);
    expect(active).toHaveLength(1);
  });
});
