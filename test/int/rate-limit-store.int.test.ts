import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresRateLimitStore } from '../../infrastructure/rate-limits/postgres-rate-limit-store.js';
import { createTestDatabase } from '../support/database.js';

/**
 * Two stores on one database stand for two API processes. Each key is held to the limit its name
 * says (`key-<limit>-...`), as the service names a key's limit by its organization's plan.
 */
const limitOf = async (key: string) => Number(key.split('-')[1]);

let databaseUrl: string;
let admin: pg.Pool;
const stores: PostgresRateLimitStore[] = [];

const openStore = () => {
  const store = new PostgresRateLimitStore(databaseUrl, limitOf);
  store.init({ windowMs: 60_000 } as Parameters<PostgresRateLimitStore['init']>[0]);
  stores.push(store);
  return store;
};

/** The shared count the database holds for a key: what every process sees. */
const sharedCount = async (key: string) =>
  Number((await admin.query<{ hits: number }>('select coalesce(sum(hits), 0) as hits from rate_limit_hits where key = $1', [`rl:${key}`])).rows[0]?.hits);

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  admin = new pg.Pool({ connectionString: databaseUrl, max: 1 });
});
afterAll(async () => {
  for (const store of stores) await store.shutdown();
  await admin?.end();
});

describe('rate limit counts shared by API processes', () => {
  it('counts every request exactly near a small limit, alternating between processes', async () => {
    const [first, second] = [openStore(), openStore()];
    const totals = [];
    for (let index = 0; index < 7; index++) totals.push((await (index % 2 === 0 ? first : second).increment('key-5-small')).totalHits);
    // Each process sees the other's requests: the sixth request is the sixth counted, wherever it lands.
    expect(totals).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(await sharedCount('key-5-small')).toBe(7);
  });

  it('answers a busy key far from its limit from memory, claiming blocks of what is left', async () => {
    const store = openStore();
    const totals = [];
    for (let index = 0; index < 100; index++) totals.push((await store.increment('key-3200-busy')).totalHits);
    // One process alone sees its own requests counted one by one.
    expect(totals).toEqual(Array.from({ length: 100 }, (_, index) => index + 1));
    // The first block is a 1/32 share of 3,200: all 100 requests fit in it, one row written once.
    expect(await sharedCount('key-3200-busy')).toBe(100);
    await store.increment('key-3200-busy');
    // The next block is a share of what was left (3,100 / 32 = 96).
    expect(await sharedCount('key-3200-busy')).toBe(196);
  });

  it('never lets two processes together go past the limit, however their requests interleave', async () => {
    const [first, second] = [openStore(), openStore()];
    const limit = 400;
    let accepted = 0;
    const requests = Array.from({ length: 600 }, (_, index) => (index % 3 === 0 ? first : second).increment(`key-${limit}-shared`));
    for (const { totalHits } of await Promise.all(requests)) if (totalHits <= limit) accepted++;
    expect(accepted).toBeLessThanOrEqual(limit);
    // Claimed tokens the other process never used are the only requests refused early: at most one share each.
    expect(accepted).toBeGreaterThanOrEqual(limit - 2 * Math.floor(limit / 32));
  });

  it('gives a token back on decrement and starts afresh after a reset', async () => {
    const store = openStore();
    await store.increment('key-100-undo');
    await store.increment('key-100-undo');
    await store.decrement('key-100-undo');
    expect((await store.increment('key-100-undo')).totalHits).toBe(2);
    await store.resetKey('key-100-undo');
    expect(await sharedCount('key-100-undo')).toBe(0);
    expect((await store.increment('key-100-undo')).totalHits).toBe(1);
  });
});
