import { expect, it } from 'vitest';
import { createLogger } from '../../infrastructure/config/logger.js';
import { createPostgresEventStore } from '../../infrastructure/event-store/postgres-event-store.js';
import type { Projection } from '../../infrastructure/projections/projection.js';
import { createProjectionSet } from '../../infrastructure/projections/projection-set.js';
import { openReadModels } from '../../infrastructure/read-models/orm.js';
import { createTestDatabase } from '../support/database.js';

it('a transient projection failure', async () => {
  const url = await createTestDatabase();
  const eventStore = await createPostgresEventStore({ connectionString: url });
  const orm = await openReadModels(url);
  let failures = 1;
  const seen: number[] = [];
  const flaky: Projection = { name: 'flaky', apply: async (_em, event) => { if (failures-- > 0) throw new Error('transient'); seen.push(event.position); } };
  const set = createProjectionSet({ orm, eventStore, logger: createLogger('silent') }, [flaky]);
  await set.start();
  const meta = { eventId: 'x', schemaVersion: 1, occurredAt: new Date().toISOString(), orgId: 'o', actor: 'system', correlationId: 'c', causationId: 'c' };
  const first = await eventStore.append('s-1', [{ type: 'E', data: {}, metadata: meta } as never], 'any');
  await new Promise((r) => setTimeout(r, 500));
  const second = await eventStore.append('s-1', [{ type: 'E', data: {}, metadata: meta } as never], 'any');
  const reached = await set.waitFor(second.position, 7000);
  console.log('RESULT', JSON.stringify({ first: first.position, second: second.position, reached, live: set.isLive(), seen }));
  await set.stop(); await orm.close(); await eventStore.close();
  expect(true).toBe(true);
}, 30000);
