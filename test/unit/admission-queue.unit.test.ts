import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAdmissionQueue, type AdmissionQueueOptions } from '../../infrastructure/rendering/admission-queue.js';
import { PoolUnavailableError } from '../../infrastructure/rendering/pool-errors.js';

const queueOf = (overrides: Partial<AdmissionQueueOptions> = {}) =>
  createAdmissionQueue({ capacity: 2, maxQueued: 10, maxQueuedPerTenant: 5, maxRunningPerTenant: 2, queueTimeoutMs: 1_000, maxRunningBackground: 1, ...overrides });

/** Settles pending promise callbacks without moving the fake clock. */
const flush = () => vi.advanceTimersByTimeAsync(0);

describe('admission queue', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('admits at once while slots are free, then queues', async () => {
    const queue = queueOf();
    await queue.admit('a');
    await queue.admit('b');
    let third = false;
    void queue.admit('a').then(() => (third = true));
    await flush();
    expect(third).toBe(false);
    expect(queue.stats()).toMatchObject({ running: 2, queued: 1 });
  });

  it('gives a freed slot to the next organization in turn, not to the longest line', async () => {
    const queue = queueOf({ capacity: 1 });
    const first = await queue.admit('flood');
    const order: string[] = [];
    const wait = (tenant: string) => queue.admit(tenant).then((admission) => (order.push(tenant), admission));
    const flood = [wait('flood'), wait('flood'), wait('flood')];
    const other = wait('other');
    first.release();
    await flush();
    (await flood[0])?.release();
    await flush();
    (await other).release();
    await flush();
    expect(order.slice(0, 3)).toEqual(['flood', 'other', 'flood']);
    for (const pending of flood) (await pending).release();
  });

  it('serves background renders after every render a client waits for, and in their share of the slots only', async () => {
    const queue = queueOf({ capacity: 4, maxRunningPerTenant: 4, maxRunningBackground: 2 });
    const batch = [await queue.admit('a', { background: true }), await queue.admit('a', { background: true })];
    let thirdRow = false;
    void queue.admit('a', { background: true }).then(() => (thirdRow = true));
    await flush();
    // Two slots are free, yet a third row waits: they are kept for renders a client waits for.
    expect(thirdRow).toBe(false);
    const interactive = [await queue.admit('a', { queueTimeoutMs: 0 }), await queue.admit('b', { queueTimeoutMs: 0 })];

    // A freed slot goes to a waiting interactive render before the waiting row.
    const order: string[] = [];
    void queue.admit('c').then(() => order.push('interactive'));
    batch[0]?.release();
    await flush();
    expect(order).toEqual(['interactive']);
    expect(thirdRow).toBe(false);
    interactive[0]?.release();
    await flush();
    expect(thirdRow).toBe(true);
  });

  it('keeps background renders to fewer slots while clients ask for renders, and gives them back once they stop', async () => {
    const queue = queueOf({ capacity: 4, maxRunningPerTenant: 4, maxRunningBackground: 3, maxRunningBackgroundWhileBusy: 1, busyWindowMs: 1_000, queueTimeoutMs: 5_000 });
    const rows = [await queue.admit('a', { background: true }), await queue.admit('a', { background: true })];
    const client = await queue.admit('b');
    let thirdRow = false;
    void queue.admit('a', { background: true }).then(() => (thirdRow = true));
    rows[0]?.release();
    await flush();
    // A client asked a moment ago: one row at a time, though two slots are free.
    expect(thirdRow).toBe(false);
    expect(queue.stats()).toMatchObject({ running: 2, queued: 1 });
    await vi.advanceTimersByTimeAsync(1_001);
    client.release();
    await flush();
    expect(thirdRow).toBe(true);
  });

  it('apart, runs background renders beside every slot of the clients, bounded by their own room', async () => {
    const queue = queueOf({ capacity: 2, maxRunningPerTenant: 2, maxRunningBackground: 2, maxRunningBackgroundWhileBusy: 1, busyWindowMs: 1_000, queueTimeoutMs: 5_000, backgroundApart: true });
    const rows = [await queue.admit('a', { background: true }), await queue.admit('a', { background: true })];
    // The batch's organization and another both render at once, in all the clients' slots.
    const clients = [await queue.admit('a'), await queue.admit('b')];
    expect(queue.stats()).toMatchObject({ running: 4, queued: 0 });
    let thirdRow = false;
    void queue.admit('a', { background: true }).then(() => (thirdRow = true));
    rows[0]?.release();
    await flush();
    // Clients asked a moment ago: one row at a time.
    expect(thirdRow).toBe(false);
    await vi.advanceTimersByTimeAsync(1_001);
    rows[1]?.release();
    await flush();
    expect(thirdRow).toBe(true);
    for (const client of clients) client.release();
  });

  it('keeps room for other organizations: one organization runs at most its share', async () => {
    const queue = queueOf({ capacity: 3, maxRunningPerTenant: 2 });
    await queue.admit('flood');
    await queue.admit('flood');
    let floodThird = false;
    void queue.admit('flood').then(() => (floodThird = true));
    await flush();
    expect(floodThird).toBe(false);
    // The slot left over is another organization's at once.
    await expect(queue.admit('other', { queueTimeoutMs: 0 })).resolves.toBeDefined();
  });

  it('refuses with a Retry-After when the queue is full, per organization and in all', async () => {
    const queue = queueOf({ capacity: 1, maxQueued: 3, maxQueuedPerTenant: 2 });
    await queue.admit('a');
    void queue.admit('a').catch(() => {});
    void queue.admit('a').catch(() => {});
    const perTenant = await queue.admit('a').catch((error: unknown) => error);
    expect(perTenant).toBeInstanceOf(PoolUnavailableError);
    expect((perTenant as PoolUnavailableError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    void queue.admit('b').catch(() => {});
    await expect(queue.admit('c')).rejects.toThrow(/capacity/);
    expect(queue.stats().rejected).toBe(2);
  });

  it('refuses a render that waited past its queue timeout, and forgets it', async () => {
    const queue = queueOf({ capacity: 1 });
    const held = await queue.admit('a');
    const waiting = queue.admit('b').catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1_001);
    expect(await waiting).toBeInstanceOf(PoolUnavailableError);
    expect(queue.stats().queued).toBe(0);
    held.release();
    expect(queue.stats().running).toBe(0);
  });

  it('leaves the line when the caller aborts', async () => {
    const queue = queueOf({ capacity: 1 });
    await queue.admit('a');
    const abort = new AbortController();
    const waiting = queue.admit('b', { signal: abort.signal }).catch((error: unknown) => error);
    abort.abort(new Error('gave up'));
    expect(await waiting).toMatchObject({ message: 'gave up' });
    expect(queue.stats().queued).toBe(0);
  });

  it('estimates Retry-After from the work ahead and the observed render time', async () => {
    const queue = queueOf({ capacity: 1, initialRenderMs: 1_000 });
    await queue.admit('a');
    for (let i = 0; i < 4; i++) void queue.admit('b').catch(() => {});
    for (let i = 0; i < 40; i++) queue.recordRenderTime(2_000);
    // Five renders ahead on one slot at about two seconds each.
    expect(queue.retryAfterSeconds()).toBeGreaterThanOrEqual(9);
    expect(queue.retryAfterSeconds()).toBeLessThanOrEqual(10);
  });

  it('releasing twice frees one slot, and close refuses everyone waiting', async () => {
    const queue = queueOf({ capacity: 1 });
    const held = await queue.admit('a');
    const waiting = queue.admit('b').catch((error: unknown) => error);
    held.release();
    held.release();
    await flush();
    expect(queue.stats().running).toBe(1);
    const next = queue.admit('c').catch((error: unknown) => error);
    queue.close(new Error('the browser pool is closed'));
    expect(await next).toBeInstanceOf(PoolUnavailableError);
    await expect(queue.admit('d')).rejects.toThrow(/closed/);
    expect(await waiting).not.toBeInstanceOf(Error);
  });
});
