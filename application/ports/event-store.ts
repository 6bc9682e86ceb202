import type { EventEnvelope, RecordedEvent } from '../../domain/shared/events.js';

/**
 * What a writer expects of the stream it appends to:
 * - 'no-stream': the stream must not exist yet (creation commands);
 * - 'any': no check (idempotent system writes);
 * - a number: the revision of the stream's last event, i.e. the stream must be exactly that long minus one.
 */
export type ExpectedRevision = 'no-stream' | 'any' | number;

export interface AppendResult {
  /** Revision of the last appended event. */
  readonly nextExpectedRevision: number;
  /** Global position of the last appended event: what a reader waits for to read its write. */
  readonly position: number;
}

export interface ReadStreamOptions {
  /** First revision to read. */
  readonly fromRevision?: number;
}

export interface ReadAllOptions {
  /** Exclusive lower bound; null reads from the start of the log. */
  readonly after: number | null;
  readonly limit: number;
  /**
   * True: events exactly as stored, in the schema version they were written in. Tamper checks need
   * this, because hashes cover what was written; everyone else reads events upcast to the current version.
   */
  readonly asStored?: boolean;
  /**
   * Only events recorded for this organization (`metadata.orgId`), so that reading one
   * organization's history costs its own events rather than everybody's.
   */
  readonly orgId?: string;
}

export interface Subscription {
  /** Stops delivery; resolves once no handler call is running. */
  stop(): Promise<void>;
  /** Resolves when the subscription fails for good (its handler threw or the store went away). */
  readonly done: Promise<void>;
}

/** Receives the events of one delivery, in position order; never an empty batch. */
export type SubscriptionHandler = (events: readonly RecordedEvent[]) => Promise<void>;

export interface EventStore {
  /**
   * Appends atomically: either all events are stored, in order, or none.
   * Throws a DomainError with code 'conflict' when `expected` does not hold.
   * The store stamps each event's schema version and its place in the stream's hash chain
   * (`metadata.hash`, `metadata.previousHash`).
   */
  append(streamName: string, events: readonly EventEnvelope[], expected: ExpectedRevision): Promise<AppendResult>;
  /**
   * The events of one stream in revision order, from `fromRevision` on (every event without it); an
   * empty array for a stream that does not exist or has nothing from there. Reading only the tail
   * lets a writer that keeps a stream's state up to date skip what it has already folded.
   */
  readStream(streamName: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** One page of the global log in position order. */
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Position of the last event in the global log; null while it is empty. Bounds a replay that runs beside new appends. */
  headPosition(): Promise<number | null>;
  /**
   * Delivers every event after `after` (catch-up), then new ones as they are appended (live), in
   * position order and in batches: what has been appended since the last delivery comes together
   * (up to a page), so a reader that falls behind catches up in few large steps instead of one
   * event at a time. The next batch is delivered only after the handler resolved.
   */
  subscribeToAll(after: number | null, handler: SubscriptionHandler): Subscription;
  close(): Promise<void>;
}
