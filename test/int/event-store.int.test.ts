import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { EventStore } from '../../application/ports/event-store.js';
import type { EventEnvelope } from '../../domain/shared/events.js';
import { createChainChecker } from '../../infrastructure/event-store/event-chain.js';
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

describe('PostgreSQL event store: group commit', () => {
  let store: EventStore;
  let sql: pg.Client;

  beforeAll(async () => {
    const url = await (databaseUrl ??= createTestDatabase());
    store = await createPostgresEventStore({ connectionString: url });
    sql = new pg.Client({ connectionString: url });
    await sql.connect();
  });

  afterAll(async () => {
    await sql.end();
    await store.close();
  });

  const envelope = (type: string, data: object = {}): EventEnvelope => ({
    type,
    data,
    metadata: {
      eventId: uuidv7(),
      schemaVersion: 1,
      occurredAt: new Date().toISOString(),
      orgId: 'org-group-commit',
      actor: 'system',
      correlationId: randomUUID(),
      causationId: randomUUID(),
    },
  });

  /** How many transactions wrote the events of streams starting with `prefix` (each row keeps its writer's xid). */
  const transactionsThatWrote = async (prefix: string) => {
    const result = await sql.query<{ count: string }>(`select count(distinct xmin::text) as count from events where stream_name like $1`, [`${prefix}%`]);
    return Number(result.rows[0]?.count);
  };

  /** The connections LISTENing for appends on this database; only those named `applicationName` when given. */
  const listeningConnections = async (applicationName?: string) =>
    Number(
      (
        await sql.query<{ count: string }>(
          `select count(*) as count from pg_stat_activity where datname = current_database() and query = 'listen event_store_appended' and ($1::text is null or application_name = $1)`,
          [applicationName ?? null],
        )
      ).rows[0]?.count,
    );

  it('writes appends that arrive while a commit is in flight together, in a few transactions', async () => {
    const prefix = `grouped${randomUUID().replaceAll('-', '')}`;
    await Promise.all(Array.from({ length: 100 }, (_, index) => store.append(`${prefix}-${index}`, [envelope('Grouped')], 'no-stream')));

    // The first append goes alone at once; the 99 queued behind it share the next commit.
    expect(await transactionsThatWrote(prefix)).toBeLessThanOrEqual(3);
  });

  it('hands a subscriber what was appended while it was busy as one batch', async () => {
    const prefix = `batched${randomUUID().replaceAll('-', '')}`;
    const before = (await store.append(`${prefix}-start`, [envelope('Start')], 'no-stream')).position;
    let release: () => void = () => {};
    const busy = new Promise<void>((resolve) => (release = resolve));
    const deliveries: number[] = [];
    const subscription = store.subscribeToAll(before - 1, async (events) => {
      deliveries.push(events.filter((event) => event.streamName.startsWith(prefix)).length);
      await busy;
    });
    try {
      await vi.waitFor(() => expect(deliveries).toEqual([1]));
      for (let index = 0; index < 30; index++) await store.append(`${prefix}-${index}`, [envelope('Later')], 'no-stream');
      // A commit's page reaches the subscriptions once its appender has gone on (the next turn of the event loop).
      await new Promise((resolve) => setImmediate(resolve));
      release();

      await vi.waitFor(() => expect(deliveries.reduce((sum, count) => sum + count, 0)).toBe(31));
      expect(deliveries).toEqual([1, 30]);
    } finally {
      await subscription.stop();
    }
  });

  it("hands a subscriber the store's own appends without reading them back, and another store's in between from the log, each once and in order", async () => {
    const url = await (databaseUrl ??= createTestDatabase());
    const prefix = `own${randomUUID().replaceAll('-', '')}`;
    // The store under watch names its connections, so that only its reads are counted, not those of
    // any other store this test process still has open.
    const watched = await createPostgresEventStore({ connectionString: `${url}${url.includes('?') ? '&' : '?'}application_name=${prefix}` });
    const elsewhere = await createPostgresEventStore({ connectionString: url });
    const before = (await watched.append(`${prefix}-start`, [envelope('Start')], 'no-stream')).position;
    // Reads of the log by the watched store, counted on pg's own client.
    const query = pg.Client.prototype.query;
    let logReads = 0;
    pg.Client.prototype.query = function countedQuery(this: pg.Client & { connectionParameters?: { application_name?: string } }, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
      if (this.connectionParameters?.application_name === prefix && text?.includes('from events where position >')) logReads++;
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    const received: number[] = [];
    const subscription = watched.subscribeToAll(before, async (events) => {
      received.push(...events.filter((event) => event.streamName.startsWith(prefix)).map((event) => event.position));
    });
    try {
      // Settled first: the store's LISTEN connection up (its connect wakes the subscription to read
      // the log once more, as after any reconnect) and that read made.
      await vi.waitFor(() => expect(logReads).toBeGreaterThan(0));
      await vi.waitFor(async () => expect(await listeningConnections(prefix)).toBe(1), { timeout: 10_000 });
      await sleep(200);
      const readsBefore = logReads;
      const own: number[] = [];
      for (let index = 0; index < 3; index++) {
        own.push((await watched.append(`${prefix}-own-${index}`, [envelope('Own')], 'no-stream')).position);
        own.push((await watched.append(`${prefix}-own-${index}`, [envelope('Again')], 0)).position);
      }
      await vi.waitFor(() => expect(received).toEqual(own));
      // Neither the appends that create streams nor those that extend them were read back.
      expect(logReads).toBe(readsBefore);

      const theirs = (await elsewhere.append(`${prefix}-theirs`, [envelope('Theirs')], 'no-stream')).position;
      const last = (await watched.append(`${prefix}-own-last`, [envelope('Own')], 'no-stream')).position;
      await vi.waitFor(() => expect(received).toEqual([...own, theirs, last]));
      expect(logReads).toBeGreaterThan(readsBefore);
      await sleep(100);
      expect(received).toEqual([...own, theirs, last]);
    } finally {
      pg.Client.prototype.query = query;
      await subscription.stop();
      await elsewhere.close();
      await watched.close();
    }
  });

  it('serves the subscriptions of a store from one LISTEN connection, each seeing every append promptly', async () => {
    const prefix = `shared${randomUUID().replaceAll('-', '')}`;
    const before = (await store.append(`${prefix}-start`, [envelope('Start')], 'no-stream')).position;
    const received = [0, 1, 2, 3].map(() => [] as number[]);
    const subscriptions = received.map((events) =>
      store.subscribeToAll(before, async (batch) => {
        events.push(...batch.filter((event) => event.streamName.startsWith(prefix)).map((event) => event.position));
      }),
    );
    try {
      await vi.waitFor(async () => expect(await listeningConnections()).toBe(1));
      const positions: number[] = [];
      for (let index = 0; index < 40; index++) {
        positions.push((await store.append(`${prefix}-${index}`, [envelope('Live')], 'no-stream')).position);
        if (index % 10 === 0) await sleep(5);
      }
      // Well before the 5 s safety re-read: no subscription waited on a read that started before its wake-up.
      await vi.waitFor(() => expect(received).toEqual(received.map(() => positions)), { timeout: 2_000 });
      expect(await listeningConnections()).toBe(1);
    } finally {
      await Promise.all(subscriptions.map((subscription) => subscription.stop()));
    }
  });

  it('takes any stream name, quotes and backslashes included, into the batch it reads heads for', async () => {
    const odd = `odd'${randomUUID()}\\'); drop table events; --"ü`;
    await Promise.all([store.append(odd, [envelope('First')], 'no-stream'), store.append(`${odd}-other`, [envelope('Other')], 'no-stream')]);
    // Any revision: the store reads the head, where an expected one it saw would not.
    await store.append(odd, [envelope('Second')], 'any');

    expect((await store.readStream(odd)).map((event) => [event.streamName, event.revision, event.type])).toEqual([
      [odd, 0, 'First'],
      [odd, 1, 'Second'],
    ]);
  });

  it('appends where it last saw a stream end in one round trip; a writer in between makes it a conflict, and the chain stays whole', async () => {
    const stream = `known-head-${randomUUID()}`;
    const other = await createPostgresEventStore({ connectionString: await (databaseUrl ??= createTestDatabase()) });
    try {
      await store.append(stream, [envelope('First')], 'no-stream');
      const queries = vi.spyOn(pg.Client.prototype, 'query');
      await store.append(stream, [envelope('Second')], 0);
      // Lock, insert, notify and commit in one statement: no read of the head first.
      expect(queries).toHaveBeenCalledTimes(1);
      queries.mockRestore();

      // Another store appends; this one still believes the stream ends at revision 1.
      await other.append(stream, [envelope('Elsewhere')], 1);
      await expect(store.append(stream, [envelope('Stale')], 1)).rejects.toMatchObject({ code: 'conflict' });
      expect((await store.readStream(stream)).map((event) => event.type)).toEqual(['First', 'Second', 'Elsewhere']);

      // Having read it, it appends where the stream ends now, at once again.
      const again = vi.spyOn(pg.Client.prototype, 'query');
      expect(await store.append(stream, [envelope('Third'), envelope('Fourth')], 2)).toMatchObject({ nextExpectedRevision: 4 });
      expect(again).toHaveBeenCalledTimes(1);
      again.mockRestore();

      const events = await other.readStream(stream);
      expect(events.map((event) => event.revision)).toEqual([0, 1, 2, 3, 4]);
      const checker = createChainChecker();
      expect(events.map((event) => checker.check(event))).toEqual([null, null, null, null, null]);
    } finally {
      await other.close();
    }
  });

  it('fails only the append the database refuses; the others of its batch are committed', async () => {
    const prefix = `refused${randomUUID().replaceAll('-', '')}`;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, index) =>
        // jsonb cannot hold a NUL character: PostgreSQL refuses this one event.
        store.append(`${prefix}-${index}`, [envelope('Maybe', index === 7 ? { text: 'nul \u0000 here' } : { index })], 'no-stream'),
      ),
    );

    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toHaveLength(1);
    expect(outcomes[7]?.status).toBe('rejected');
    expect(await store.readStream(`${prefix}-7`)).toEqual([]);
    for (const index of [0, 6, 8, 19]) expect(await store.readStream(`${prefix}-${index}`)).toHaveLength(1);
  });
});
