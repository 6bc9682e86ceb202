import { createEventStoreDbEventStore } from '../../infrastructure/event-store/eventstoredb-event-store.js';
import { createPostgresEventStore } from '../../infrastructure/event-store/postgres-event-store.js';
import { createTestDatabase } from '../support/database.js';
import { eventStoreContract } from './event-store-contract.js';

let databaseUrl: Promise<string> | undefined;
eventStoreContract('PostgreSQL', async () =>
  createPostgresEventStore({ connectionString: await (databaseUrl ??= createTestDatabase()) }),
);

const eventStoreUrl = process.env.EVENTSTORE_URL;
if (eventStoreUrl) {
  eventStoreContract('EventStoreDB', async () => createEventStoreDbEventStore({ connectionString: eventStoreUrl }));
} else {
  console.info('EventStoreDB contract run skipped: EVENTSTORE_URL is unset (set it, e.g. esdb://localhost:2113?tls=false, to run it)');
}
