import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../infrastructure/config/config.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { createRuntime, type Runtime } from '../../interfaces/composition-root.js';
import { createHttpApp } from '../../interfaces/rest/app.js';
import { listen, type RunningHttpServer } from '../../interfaces/rest/http-server.js';
import { createTestDatabase } from '../support/database.js';

/*
 * The service's own logger at its most talkative, written to memory: requests carrying an API key
 * in the header, in GET /img's query, and a signed link's signature must leave none of them in it.
 */

let runtime: Runtime;
let server: RunningHttpServer;
let dataDir: string;
const apiKey = `rk_test_${randomBytes(16).toString('hex')}`;
const written: string[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-service-logs-'));
  const config = loadConfig({ DATABASE_URL: await createTestDatabase(), DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', BOOTSTRAP_API_KEY: apiKey });
  const logger = createLogger('trace', { write: (line: string) => void written.push(line) });
  runtime = await createRuntime(config, logger, { runProjections: true, rendering: 'off' });
  await runtime.services.accounts.ensureBootstrapKey(apiKey);
  server = await listen(createHttpApp({ services: runtime.services, logger, bodyLimit: config.BODY_LIMIT }), 0, '127.0.0.1');
});

afterAll(async () => {
  await server?.close(1000);
  await runtime?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('request logs', () => {
  it('never contain an API key, from the header or the query, nor a link signature', async () => {
    const signature = 'a'.repeat(64);
    await fetch(`${server.url}/api/v2/my-templates`, { headers: { 'x-api-key': apiKey } });
    await fetch(`${server.url}/img/tpl_missing.jpg?apiKey=${apiKey}&title=Hello`);
    await fetch(`${server.url}/files/some-request/card.jpg?expires=9999999999&signature=${signature}`);
    const wrong = `rk_wrong_${randomBytes(16).toString('hex')}`;
    await fetch(`${server.url}/api/v2/my-templates`, { headers: { 'x-api-key': wrong } });

    const log = written.join('');
    expect(log).toContain('/api/v2/my-templates');
    expect(log).toContain('title=Hello');
    expect(log).toContain('[redacted]');
    for (const secret of [apiKey, wrong, signature]) expect(written.filter((line) => line.includes(secret))).toEqual([]);
  });

  it('write one line per answer, under the request id it echoed, with its status, time and the organization and key that made it: warn for a 4xx', async () => {
    const lines = (reqId: string) =>
      written.map((line) => JSON.parse(line) as Record<string, unknown> & { req?: { method?: string; url?: string }; res?: { statusCode?: number } }).filter((line) => line.reqId === reqId && line.msg === 'request completed');
    const ok = await fetch(`${server.url}/api/v2/my-templates`, { headers: { 'x-api-key': apiKey, 'x-request-id': 'req-logged-1' } });
    const refused = await fetch(`${server.url}/api/v2/my-templates`, { headers: { 'x-api-key': 'rk_nobody', 'x-request-id': 'req-logged-2' } });
    expect([ok.status, ok.headers.get('x-request-id'), refused.status]).toEqual([200, 'req-logged-1', 403]);

    await vi.waitFor(() => expect(lines('req-logged-2')).toHaveLength(1));
    expect(lines('req-logged-1')).toEqual([
      expect.objectContaining({
        level: 30,
        req: expect.objectContaining({ method: 'GET', url: '/api/v2/my-templates' }),
        orgId: expect.any(String),
        keyId: expect.any(String),
        res: expect.objectContaining({ statusCode: 200 }),
        responseTime: expect.any(Number),
      }),
    ]);
    expect(lines('req-logged-2')).toEqual([expect.objectContaining({ level: 40, res: expect.objectContaining({ statusCode: 403 }) })]);
    expect(lines('req-logged-2')[0]).not.toHaveProperty('orgId');
    // One line per answer: the request's line names who made it, no line of its own says so.
    expect(written.filter((line) => line.includes('req-logged-1'))).toHaveLength(1);
  });
});
