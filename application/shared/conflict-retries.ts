import { DomainError } from '../../domain/shared/errors.js';

/**
 * How a writer that lost an optimistic append to another writer of the same stream tries again.
 *
 * Writers that retry at once meet again at once: several processes charging one busy account read,
 * decide and append in lockstep, and the same one loses every round until its attempts run out (a
 * charge refused as a conflict, whole batches at a time, on a slow machine). Waiting a random share
 * of a window that doubles with each loss ("full jitter") spreads them apart, so each retry most
 * likely finds the stream quiet. The windows add up to under 0.3 s.
 */
export const CONFLICT_ATTEMPTS = 8;

const FIRST_WINDOW_MS = 2;

const isConflict = (error: unknown): boolean => error instanceof DomainError && error.code === 'conflict';

/** Whether to try again after `attempt` (1-based) failed with `error`; waits first when so. */
export const retryAfterConflict = async (error: unknown, attempt: number): Promise<boolean> => {
  if (!isConflict(error) || attempt >= CONFLICT_ATTEMPTS) return false;
  const windowMs = FIRST_WINDOW_MS * 2 ** (attempt - 1);
  await new Promise((resolve) => setTimeout(resolve, Math.random() * windowMs));
  return true;
};
