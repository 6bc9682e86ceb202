import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../infrastructure/config/config.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { createRuntime, type Runtime } from '../../interfaces/composition-root.js';
import { createHttpApp } from '../../interfaces/rest/app.js';
import { listen, type RunningHttpServer } from '../../interfaces/rest/http-server.js';
import { MAX_TRPC_BATCH } from '../../interfaces/trpc/mount.js';
import { expectError } from '../support/expect-error.js';
import { callApi } from '../support/http-call.js';
import { sleep } from '../support/wait-for.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Per-key limits shared by every API process: two processes on one database count the same key's
 * requests together. New organizations are on the `free` plan, limited here to 5 requests a minute.
 */
const LIMITS = { RATE_LIMIT_PLANS: 'free:5', RATE_LIMIT_DEFAULT: '1000', RATE_LIMIT_WINDOW_SECONDS: '60', SIGNED_IMAGE_RATE_LIMIT: '3' };

let first: TestApp;
let second: { runtime: Runtime; server: RunningHttpServer; dataDir: string };

beforeAll(async () => {
  first = await startTestApp({ env: LIMITS });
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-service-second-api-'));
  const config = loadConfig({ ...LIMITS, DATABASE_URL: first.runtime.config.DATABASE_URL ?? '', DATA_DIR: dataDir, PORT: '0' });
  const runtime = await createRuntime(config, createLogger('silent'), { runProjections: false, rendering: 'off' });
  const server = await listen(createHttpApp({ services: runtime.services, logger: createLogger('silent'), bodyLimit: '2mb' }), 0, '127.0.0.1');
  second = { runtime, server, dataDir };
});
afterAll(async () => {
  await second?.server.close(1000);
  await second?.runtime.close();
  if (second?.dataDir) await rm(second.dataDir, { recursive: true, force: true });
  await first?.close();
});

/**
 * Windows are fixed, at multiples of their length: a test that fills one starts in a window with
 * time left, or its last requests would be counted in the next one.
 */
const windowWithRoom = async () => {
  const windowMs = Number(LIMITS.RATE_LIMIT_WINDOW_SECONDS) * 1000;
  const left = windowMs - (Date.now() % windowMs);
  if (left < 10_000) await sleep(left + 50);
};

describe('per-key rate limits', () => {
  it('count one key across API processes, then answer 429 with Retry-After and the RateLimit headers', async () => {
    const key = await first.newOrganizationKey();
    await windowWithRoom();
    const answers = [];
    for (let index = 0; index < 5; index++) {
      const base = index % 2 === 0 ? first.url : second.server.url;
      answers.push(await callApi(base, key, 'GET', '/api/v1/usage'));
    }
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers[0]?.headers.get('ratelimit-policy')).toMatch(/q=5; w=60/);
    expect(answers[4]?.headers.get('ratelimit')).toMatch(/r=0; t=\d+/);

    for (const base of [first.url, second.server.url]) {
      const refused = await callApi(base, key, 'GET', '/api/v1/usage');
      expectError(refused, 429, /5 requests per 60 s/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    }
    // GET /img takes its key in the query and is counted the same way.
    const image = await fetch(`${first.url}/img/any.jpg?apiKey=${encodeURIComponent(key)}`);
    expectError({ status: image.status, body: await image.json() }, 429);
  });

  it('keeps each key to its own count, and does not count requests without a valid key', async () => {
    const key = await first.newOrganizationKey();
    for (let index = 0; index < 8; index++) expectError(await callApi(first.url, 'rk_not_a_key_at_all_0000', 'GET', '/api/v1/usage'), 403);
    expect((await callApi(first.url, key, 'GET', '/api/v1/usage')).status).toBe(200);
  });

  it('counts every call of a tRPC batch as one request, and refuses a batch over the bound without running it', async () => {
    await windowWithRoom();
    const key = await first.newOrganizationKey();
    const batch = (calls: number) =>
      fetch(`${first.url}/trpc/${Array.from({ length: calls }, () => 'ping').join(',')}?batch=1`, { headers: { 'x-api-key': key } });
    const four = await batch(4);
    expect(four.status).toBe(200);
    expect(await four.json()).toHaveLength(4);
    expect(four.headers.get('ratelimit')).toMatch(/r=1; t=\d+/);
    expect((await batch(2)).status).toBe(429);
    expectError(await callApi(first.url, key, 'GET', '/api/v1/usage'), 429);

    // Fifty calls in one request are fifty requests: far past this key's five.
    const fifty = await first.newOrganizationKey();
    const many = await fetch(`${first.url}/trpc/${Array.from({ length: 50 }, () => 'ping').join(',')}?batch=1`, { headers: { 'x-api-key': fifty } });
    expect(many.status).toBe(429);
    expectError(await callApi(first.url, fifty, 'GET', '/api/v1/usage'), 429);

    const fresh = await first.newOrganizationKey();
    const oversized = await fetch(`${first.url}/trpc/${Array.from({ length: MAX_TRPC_BATCH + 1 }, () => 'ping').join(',')}?batch=1`, { headers: { 'x-api-key': fresh } });
    expect(oversized.status).toBe(400);
    expect(JSON.stringify(await oversized.json())).toMatch(/Batch call exceeds maximum size/);
    // Refused whole, it counted once: four of the key's five requests are left.
    expect((await callApi(first.url, fresh, 'GET', '/api/v1/usage')).headers.get('ratelimit')).toMatch(/r=3; t=\d+/);
  });

  it('bounds the signed image URL views of one client address, whatever key the URLs name, leaving other requests alone', async () => {
    await windowWithRoom();
    const signedView = (keyId: string) => fetch(`${first.url}/img/any.jpg?title=x&expires=4102444800&keyId=${keyId}&signature=${'0'.repeat(64)}`);
    const answers = [];
    for (const keyId of ['k1', 'k2', 'k3', 'k4']) answers.push(await signedView(keyId));
    expect(answers.map((answer) => answer.status)).toEqual([403, 403, 403, 429]);
    expectError({ status: 429, body: await answers[3]?.json() }, 429, /3 signed image URLs per 60 s/);
    expect((await callApi(first.url, await first.newOrganizationKey(), 'GET', '/api/v1/usage')).status).toBe(200);
  });

  it('leaves a plan without a configured limit to the default', async () => {
    // The bootstrap organization is on the same free plan: it is limited like any other.
    const answer = await callApi(first.url, first.apiKey, 'GET', '/api/v1/usage');
    expect(answer.headers.get('ratelimit-policy')).toMatch(/q=5/);
  });
});
