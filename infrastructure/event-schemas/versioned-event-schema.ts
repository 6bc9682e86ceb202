import type { z } from 'zod';
import type { DomainEvent } from '../../domain/shared/events.js';

/** Turns the data of one schema version into the next version's shape. */
export type Upcaster = (data: Record<string, unknown>) => Record<string, unknown>;

/**
 * How one event type's data looks now, and how older stored versions become that. Events are never
 * rewritten in the store: an event keeps the version it was written in and is upcast when read.
 */
export interface VersionedEventSchema<Data extends object> {
  /** The version new events are written in: 1 + the number of upcasters. */
  readonly version: number;
  /** The current version's shape, checked on every append. */
  readonly schema: z.ZodType<Data>;
  /** `upcasters[i]` turns version i + 1 into version i + 2. */
  readonly upcasters: readonly Upcaster[];
}

/** A schema at version 1 + upcasters.length, so the version can never disagree with the upcasters. */
export const eventSchema = <Data extends object>(schema: z.ZodType<Data>, ...upcasters: Upcaster[]): VersionedEventSchema<Data> => ({
  version: upcasters.length + 1,
  schema,
  upcasters,
});

/** One schema per event type of a context's union: tsc rejects a map that misses a type. */
export type EventSchemas<E extends DomainEvent> = {
  readonly [K in E['type']]: VersionedEventSchema<Extract<E, { type: K }>['data']>;
};
