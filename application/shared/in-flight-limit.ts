import { UnavailableError } from '../../domain/shared/errors.js';

export interface InFlightLimits {
  /** Calls running at once, all keys together. */
  readonly total: number;
  /** Calls running at once for one key (an organization), so that one cannot take every place. */
  readonly perKey: number;
  /** Told to a refused caller as Retry-After. */
  readonly retryAfterSeconds: number;
}

/**
 * Bounds expensive calls running at once. A call over either bound is refused at once with a 503
 * and Retry-After rather than queued: the work it would wait behind is long, and a client that
 * retries later costs nothing meanwhile.
 */
export const createInFlightLimit = (what: string, limits: InFlightLimits) => {
  let running = 0;
  const byKey = new Map<string, number>();
  return async <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const mine = byKey.get(key) ?? 0;
    if (running >= limits.total || mine >= limits.perKey) {
      const bound = mine >= limits.perKey ? `${limits.perKey} per organization` : `${limits.total} in all`;
      throw new UnavailableError(`Too many ${what} in progress; retry shortly`, limits.retryAfterSeconds, [`${what}: at most ${bound} at once`]);
    }
    running += 1;
    byKey.set(key, mine + 1);
    try {
      return await work();
    } finally {
      running -= 1;
      const left = (byKey.get(key) ?? 1) - 1;
      if (left === 0) byKey.delete(key);
      else byKey.set(key, left);
    }
  };
};
