import { canonicalJson } from '../../domain/shared/canonical-json.js';
import { hash } from 'node:crypto';
import type { ChainBreak, ChainChecker } from '../../application/ports/audit.js';
import type { EventEnvelope, EventMetadata, RecordedEvent } from '../../domain/shared/events.js';

/**
 * The hash chain that makes edits to stored events evident. Each event's hash covers where it sits
 * (stream, revision), what it says (type, data) and its metadata including the previous event's
 * hash; changing any stored byte of any event, or removing one, breaks the chain from there on.
 */


interface HashedFields {
  readonly type: string;
  readonly data: object;
  readonly metadata: EventMetadata;
}

export const eventHash = (streamName: string, revision: number, { type, data, metadata }: HashedFields): string => {
  const { hash: _hash, ...covered } = metadata;
  return hash('sha256', canonicalJson({ streamName, revision, type, data, metadata: covered }), 'hex');
};

/** The events to append, each carrying its hash and its predecessor's; `previousHash` is the stream's last hash. */
export const chainEvents = (
  streamName: string,
  firstRevision: number,
  previousHash: string | null,
  events: readonly EventEnvelope[],
): EventEnvelope[] => {
  let previous = previousHash;
  return events.map((event, index) => {
    const metadata = { ...event.metadata, previousHash: previous };
    delete (metadata as { hash?: string }).hash;
    const hash = eventHash(streamName, firstRevision + index, { ...event, metadata });
    previous = hash;
    return { ...event, metadata: { ...metadata, hash } } as EventEnvelope;
  });
};

/**
 * Checks events of many streams as they come in log order (each stream's events in revision order),
 * remembering only each stream's last revision and hash. Events of a stream before its first hashed
 * one were written before chaining existed; they are counted as unchained, not reported as breaks.
 */
export const createChainChecker = (): ChainChecker => {
  const last = new Map<string, { revision: number; hash: string | null }>();
  let unchained = 0;

  return {
    /** The problem with this event, or null when it continues its stream's chain. */
    check(event: RecordedEvent) {
      const { streamName, revision, position, metadata } = event;
      const before = last.get(streamName);
      const breakOf = (problem: string): ChainBreak => ({ streamName, revision, position, problem });
      last.set(streamName, { revision, hash: metadata.hash ?? null });
      if (before && revision !== before.revision + 1) return breakOf(`revision ${revision} follows revision ${before.revision}`);
      if (!before && revision !== 0) return breakOf(`the stream starts at revision ${revision}`);
      if (metadata.hash === undefined) {
        if (before?.hash) return breakOf('the event has no hash although the one before it has');
        unchained += 1;
        return null;
      }
      const expectedPrevious = before?.hash ?? null;
      if ((metadata.previousHash ?? null) !== expectedPrevious) return breakOf('previousHash does not name the hash of the event before');
      if (eventHash(streamName, revision, event) !== metadata.hash) return breakOf('the event does not match its hash (edited after it was written)');
      return null;
    },
    unchained: () => unchained,
  };
};
