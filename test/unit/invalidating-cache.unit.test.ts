import { describe, expect, it } from 'vitest';
import { createInvalidatingCache } from '../../infrastructure/read-models/invalidating-cache.js';

const deferred = <T>() => {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
};

describe('invalidating cache', () => {
  it('loads once, then answers from memory until evicted', async () => {
    const cache = createInvalidatingCache<{ v: number }>(10);
    let loads = 0;
    const load = async () => ({ v: ++loads });
    expect(await cache.get('a', load)).toEqual({ v: 1 });
    expect(await cache.get('a', load)).toEqual({ v: 1 });
    cache.evict('a');
    expect(await cache.get('a', load)).toEqual({ v: 2 });
  });

  it('does not keep a row loaded while an eviction happened: it may be the old version', async () => {
    const cache = createInvalidatingCache<{ v: string }>(10);
    const slow = deferred<{ v: string }>();
    const inFlight = cache.get('a', () => slow.promise);
    cache.evict('a');
    slow.resolve({ v: 'old' });
    expect(await inFlight).toEqual({ v: 'old' });
    expect(await cache.get('a', async () => ({ v: 'new' }))).toEqual({ v: 'new' });
  });

  it('never caches a miss', async () => {
    const cache = createInvalidatingCache<{ v: string }>(10);
    expect(await cache.get('a', async () => null)).toBeNull();
    expect(await cache.get('a', async () => ({ v: 'found' }))).toEqual({ v: 'found' });
  });

  it('evicts by value and stays within its bound', async () => {
    const cache = createInvalidatingCache<{ org: string }>(2);
    await cache.get('k1', async () => ({ org: 'x' }));
    await cache.get('k2', async () => ({ org: 'y' }));
    cache.evictWhere((value) => value.org === 'x');
    expect(await cache.get('k1', async () => ({ org: 'x2' }))).toEqual({ org: 'x2' });
    expect(await cache.get('k2', async () => ({ org: 'unused' }))).toEqual({ org: 'y' });
    await cache.get('k3', async () => ({ org: 'z' }));
    // k1 is the least recently used of three entries in a cache of two.
    expect(await cache.get('k1', async () => ({ org: 'reloaded' }))).toEqual({ org: 'reloaded' });
  });
});
