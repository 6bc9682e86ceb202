import { LRUCache } from 'lru-cache';

/**
 * A bounded in-memory read-through cache for read-model rows on the hot path (API keys, templates),
 * evicted when the projections of this process commit a change to them.
 *
 * A load races with evictions: a reader may fetch a row just before a projection commits its new
 * version and store it just after the eviction, keeping the old row for good. Every eviction bumps
 * a generation; a load stores its row only if no eviction happened while it was in flight.
 */
export interface InvalidatingCache<V extends {}> {
  get(key: string, load: () => Promise<V | null>): Promise<V | null>;
  evict(key: string): void;
  /** Evicts every entry whose value matches, for events that name no cache key. */
  evictWhere(matches: (value: V) => boolean): void;
  /** Holds `value` as the newest row of `key`, as committed: a load in flight began before it. */
  set(key: string, value: V): void;
}

export const createInvalidatingCache = <V extends {}>(max: number): InvalidatingCache<V> => {
  const entries = new LRUCache<string, V>({ max });
  let generation = 0;
  return {
    async get(key, load) {
      const cached = entries.get(key);
      if (cached !== undefined) return cached;
      const startedAt = generation;
      const loaded = await load();
      // Misses are not cached: unknown keys are not the hot path, and caching them would let a caller fill memory.
      if (loaded !== null && startedAt === generation) entries.set(key, loaded);
      return loaded;
    },
    evict(key) {
      generation++;
      entries.delete(key);
    },
    evictWhere(matches) {
      generation++;
      for (const [key, value] of entries.entries()) if (matches(value)) entries.delete(key);
    },
    set(key, value) {
      generation++;
      entries.set(key, value);
    },
  };
};
