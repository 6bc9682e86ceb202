import type { ExpectedRevision } from '../../application/ports/event-store.js';

/** Where an append chains on: the revision of its first event and the hash before it. */
export interface ChainStart {
  readonly firstRevision: number;
  readonly previousHash: string | null;
}

/**
 * The last revision and hash of streams this store wrote or read, so an append expecting a stream
 * to stand where this store last saw it needs no read of the stream's head before it is written.
 *
 * Safe however stale: an event's hash never changes once written, so an append expecting revision
 * r chains onto r's hash correctly whenever the stream still ends at r, and when it does not, the
 * unique (stream, revision) key refuses the insert, as for a stream created twice. Another writer
 * (another process, or one outside this store) costs a conflict, then a read, never a broken chain.
 */
export interface KnownHeads {
  /** Where an append at `expected` chains on, when this store knows; undefined when it must read. */
  chainFrom(streamName: string, expected: ExpectedRevision): ChainStart | undefined;
  /** The stream was seen ending at `revision`, whose hash is `hash`. */
  saw(streamName: string, revision: number, hash: string | null): void;
}

export const createKnownHeads = (capacity = 10_000): KnownHeads => {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently seen first.
  const heads = new Map<string, { readonly revision: number; readonly hash: string | null }>();
  return {
    chainFrom(streamName, expected) {
      if (expected === 'no-stream') return { firstRevision: 0, previousHash: null };
      const head = heads.get(streamName);
      if (typeof expected !== 'number' || head?.revision !== expected) return undefined;
      return { firstRevision: expected + 1, previousHash: head.hash };
    },
    saw(streamName, revision, hash) {
      const known = heads.get(streamName);
      // A read that began before this store's own append may answer after it: the later head stays.
      if (known && known.revision > revision) return;
      heads.delete(streamName);
      heads.set(streamName, { revision, hash });
      if (heads.size > capacity) heads.delete(heads.keys().next().value as string);
    },
  };
};
