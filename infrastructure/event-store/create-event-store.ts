import type { EventStore } from '../../application/ports/event-store.js';
import { eventSchemaRegistry } from '../event-schemas/event-schema-registry.js';
import { createEventStoreDbEventStore } from './eventstoredb-event-store.js';
import { createPostgresEventStore } from './postgres-event-store.js';

/** The subset of a pino (or console) logger the event store adapters use. */
export interface EventStoreLogger {
  warn(message: string): void;
  error(message: string): void;
}

export interface CreateEventStoreOptions {
  /** EVENTSTORE_URL: when set, events live in EventStoreDB. */
  readonly eventStoreUrl?: string;
  /** The PostgreSQL database that holds the events otherwise. */
  readonly databaseUrl: string;
  readonly logger?: EventStoreLogger;
}

/** The service's event store: every event checked against its schema on append and upcast on read. */
export async function createEventStore({ eventStoreUrl, databaseUrl, logger }: CreateEventStoreOptions): Promise<EventStore> {
  const schemas = eventSchemaRegistry;
  if (eventStoreUrl) return createEventStoreDbEventStore({ connectionString: eventStoreUrl, logger, schemas });
  return createPostgresEventStore({ connectionString: databaseUrl, logger, schemas });
}
