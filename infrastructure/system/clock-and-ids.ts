import { randomFillSync } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { Clock, IdGenerator } from '../../application/ports/clock.js';

export const systemClock: Clock = { now: () => new Date() };

/** Random bytes are drawn this many ids at a time: a call into the system's generator per id showed in a cache hit's CPU. */
const IDS_PER_DRAW = 256;
const RANDOM_BYTES_PER_ID = 16;

/**
 * uuidv7s that stay in order within this process, as the uuid package's own v7 keeps them: a
 * millisecond's first id starts its counter at random, the next ones count up (and a counter that
 * wraps borrows the next millisecond). The package's own state is kept only when it draws the
 * random bytes itself, one call each; here they come from a pool.
 */
export const createUuidV7Ids = (): IdGenerator => {
  const pool = Buffer.allocUnsafe(IDS_PER_DRAW * RANDOM_BYTES_PER_ID);
  let drawn = pool.length;
  let msecs = -Infinity;
  let seq = 0;
  const randomBytes = () => {
    if (drawn === pool.length) {
      randomFillSync(pool);
      drawn = 0;
    }
    drawn += RANDOM_BYTES_PER_ID;
    return pool.subarray(drawn - RANDOM_BYTES_PER_ID, drawn);
  };
  return {
    next() {
      const now = Date.now();
      const random = randomBytes();
      if (now > msecs) {
        // 31 random bits, as the package seeds it: room to count up within the millisecond.
        seq = (((random[6] ?? 0) & 0x7f) << 24) | ((random[7] ?? 0) << 16) | ((random[8] ?? 0) << 8) | (random[9] ?? 0);
        msecs = now;
      } else {
        seq = (seq + 1) | 0;
        if (seq === 0) msecs++;
      }
      return uuidv7({ msecs, seq, random });
    },
  };
};

export const uuidV7Ids: IdGenerator = createUuidV7Ids();
