import type { Clock } from '../../ports/clock.js';

/*
 * A template that failed because it is hostile (an endless script, a page bomb, a memory hog) fails
 * the same way when asked again with the same content and data, and each attempt would hold a page
 * for seconds. The record remembers such renders, by what makes them identical, for a while: a
 * repeat is refused at once, before anything is recorded or charged. Bounded and expiring, since
 * it is a shield for this process, not a fact of the log (the template or its data change its key).
 */

export interface KnownBadRenders {
  /** Why an identical render failed as the request's fault, when it did so recently. */
  reasonFor(key: string): string | undefined;
  remember(key: string, reason: string): void;
}

export const createKnownBadRenders = ({ clock, maxEntries = 1_000, forgetAfterMs = 2 * 60_000 }: { clock: Clock; maxEntries?: number; forgetAfterMs?: number }): KnownBadRenders => {
  // A Map iterates in insertion order: the first entry is always the oldest.
  const entries = new Map<string, { reason: string; until: number }>();
  return {
    reasonFor(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.until > clock.now().getTime()) return entry.reason;
      entries.delete(key);
      return undefined;
    },
    remember(key, reason) {
      entries.delete(key);
      entries.set(key, { reason, until: clock.now().getTime() + forgetAfterMs });
      for (const oldest of entries.keys()) {
        if (entries.size <= maxEntries) break;
        entries.delete(oldest);
      }
    },
  };
};
