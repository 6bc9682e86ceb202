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

/** An event as read back from the store. */
export type RecordedEvent<E extends DomainEvent = DomainEvent> = EventEnvelope<E> & {
  readonly streamName: string;
  /** 0-based index of the event within its stream. */
  readonly revision: number;
  /** Position in the global log; strictly increasing in commit order. */
  readonly position: number;
};
