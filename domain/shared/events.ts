/**
 * Event shapes shared by every aggregate. A decider only produces `DomainEvent`s (type + data);
 * the application layer wraps them into envelopes with metadata, because metadata needs the
 * clock, the id generator and the caller, none of which the domain may read.
 */
export interface DomainEvent<Type extends string = string, Data extends object = object> {
  readonly type: Type;
  readonly data: Data;
}

export interface EventMetadata {
  /** uuidv7, unique per event. */
  readonly eventId: string;
  readonly schemaVersion: number;
  /** ISO 8601 UTC. */
  readonly occurredAt: string;
  readonly orgId: string;
  /** API key id, or "system" for work the service does on its own. */
  readonly actor: string;
  readonly correlationId: string;
  readonly causationId: string;
  /**
   * Tamper evidence, set by the event store when it appends: `hash` is the SHA-256 of this event
   * (stream, revision, type, data and the rest of its metadata) and `previousHash` the hash of the
   * stream's previous event (null for the first), so editing any stored event breaks the chain.
   */
  readonly hash?: string;
  readonly previousHash?: string | null;
}

/**
 * An event ready to append: the domain event plus its metadata. Distributes over unions so that
 * switching on `type` narrows `data`.
 */
export type EventEnvelope<E extends DomainEvent = DomainEvent> = E extends DomainEvent
  ? { readonly type: E['type']; readonly data: E['data']; readonly metadata: EventMetadata }
  : never;

/**
 * An event as read back from the store: the domain event itself with where it was stored, so a
 * recorded event of an aggregate is one of its domain events (folds take it as it is).
 */
export type RecordedEvent<E extends DomainEvent = DomainEvent> = E & {
  readonly metadata: EventMetadata;
  readonly streamName: string;
  /** 0-based index of the event within its stream. */
  readonly revision: number;
  /** Position in the global log; strictly increasing in commit order. */
  readonly position: number;
};

/**
 * Tells the events of one aggregate from any other in the log, by type. Built from the complete list
 * of the aggregate's event types, so tsc refuses a list that misses one or names one it does not have.
 * Their data needs no check here: the event store validated (and upcast) every event it read.
 */
export const eventGuard =
  <E extends DomainEvent>(types: Readonly<Record<E['type'], true>>) =>
  (event: RecordedEvent): event is RecordedEvent<E> =>
    Object.hasOwn(types, event.type);
