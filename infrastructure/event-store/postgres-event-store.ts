import pg from 'pg';
import { CONNECTION_BOUNDS } from '../postgres/connection-bounds.js';
import type {
  AppendResult,
  EventStore,
  ExpectedRevision,
  ReadAllOptions,
  ReadStreamOptions,
  Subscription,
  SubscriptionHandler,
} from '../../application/ports/event-store.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { EventEnvelope, EventMetadata, RecordedEvent } from '../../domain/shared/events.js';
import type { EventSchemaRegistry } from '../event-schemas/event-schema-registry.js';
import { chainEvents } from './event-chain.js';
import { createGroupCommit, type ItemOutcome } from './group-commit.js';
import { createKnownHeads, type ChainStart, type KnownHeads } from './known-heads.js';
import { reportPoolErrors } from '../postgres/pool-errors.js';

/** The subset of a pino (or console) logger this adapter uses. */
export interface PostgresEventStoreLogger {
  warn(message: string): void;
  error(message: string): void;
}

export interface PostgresEventStoreOptions {
  readonly connectionString: string;
  readonly logger?: PostgresEventStoreLogger;
  /** Checks and versions events on append, upcasts them on read; without it events pass as they are. */
  readonly schemas?: EventSchemaRegistry;
}

/** Key of the transaction-level advisory lock every appending transaction and the schema setup take. */
const APPEND_LOCK_KEY = 7_411_902_365;
const APPENDED_CHANNEL = 'event_store_appended';
/** Bounds one commit's insert (and the time the lock is held); a larger burst goes in several commits. */
const MAX_EVENTS_PER_COMMIT = 1_000;
const SUBSCRIPTION_PAGE_SIZE = 500;
/** Pages of a store's own appends kept for subscriptions that have not passed them yet. */
const LOCAL_PAGES_KEPT = 32;
/** Re-read although no notification arrived, in case one was lost while the listener reconnected. */
const SAFETY_REREAD_MS = 5_000;
const LISTENER_RETRY_MS = 1_000;

interface EventRow {
  position: string;
  stream_name: string;
  revision: number;
  type: string;
  data: object;
  metadata: EventMetadata;
}

const SELECT_COLUMNS = 'position, stream_name, revision, type, data, metadata';

const toRecordedEvent = (row: EventRow): RecordedEvent => ({
  type: row.type,
  data: row.data,
  metadata: row.metadata,
  streamName: row.stream_name,
  revision: row.revision,
  position: Number(row.position),
});

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

const wrongExpectedRevision = (streamName: string, expected: ExpectedRevision, current: number | null) =>
  new DomainError(
    'conflict',
    `stream ${streamName}: expected ${expected === 'no-stream' ? 'no stream' : `revision ${expected}`}, ` +
      `found ${current === null ? 'no stream' : `revision ${current}`}`,
  );

const expectationHolds = (expected: ExpectedRevision, current: number | null) =>
  expected === 'any' || (expected === 'no-stream' ? current === null : current === expected);

/** A unique violation means another writer took the revision first (one that did not take the append lock). */
const asConflict = (error: unknown, streamName: string) =>
  (error as { code?: string }).code === '23505'
    ? new DomainError('conflict', `stream ${streamName}: a concurrent append took the expected revision`)
    : error;

interface PendingAppend {
  readonly streamName: string;
  readonly events: readonly EventEnvelope[];
  readonly expected: ExpectedRevision;
}

interface WrittenBatch {
  readonly outcomes: ItemOutcome<AppendResult>[];
  /** What the batch wrote, as a read of the log after `page.before` would return it once committed. */
  readonly page: LocalPage;
}

/**
 * Events this store appended, with the log's last position before them: read under the append lock,
 * so nothing else lies between `before` and them, and a reader standing at `before` may take them
 * as the log's next page without reading it.
 */
interface LocalPage {
  readonly before: number;
  readonly events: readonly RecordedEvent[];
}

interface InsertedRow {
  readonly stream_name: string;
  readonly revision: number;
  readonly position: string;
}

/** An inserted event with its data and metadata as the JSON text stored, and as the values appended. */
interface InsertedEvent {
  readonly streamName: string;
  readonly revision: number;
  readonly type: string;
  readonly data: string;
  readonly metadata: string;
  readonly appended: EventEnvelope;
}

/** A stream's chained events from `firstRevision` on, as the rows to insert. */
const rowsOf = (streamName: string, firstRevision: number, chained: readonly EventEnvelope[]): InsertedEvent[] =>
  chained.map((event, index) => ({
    streamName,
    revision: firstRevision + index,
    type: event.type,
    data: JSON.stringify(event.data),
    metadata: JSON.stringify(event.metadata),
    appended: event,
  }));

/**
 * The inserted events as the log reads them, at the positions the insert gave them. Their data and
 * metadata are the values appended, not parsed back from the JSON stored: the schemas checked them
 * as JSON values (strings for times, no Dates), so the log's reading holds the same, and parsing
 * them again would cost every append, a cache hit's included, in proportion to its data.
 */
const pageOf = (before: number, inserted: readonly InsertedEvent[], rows: readonly InsertedRow[]): LocalPage => {
  const positions = new Map(rows.map((row) => [rowKey(row.stream_name, row.revision), Number(row.position)]));
  const events = inserted.map(
    ({ appended, streamName, revision }): RecordedEvent => ({
      type: appended.type,
      data: appended.data,
      metadata: appended.metadata,
      streamName,
      revision,
      position: positions.get(rowKey(streamName, revision)) ?? Number.NaN,
    }),
  );
  return { before, events: events.sort((a, b) => a.position - b.position) };
};

interface HeadRow {
  readonly stream_name: string;
  readonly revision: number;
  readonly position: string;
  readonly hash: string | null;
}

/**
 * Opens the batch's transaction, takes the append lock and reads each stream's last event (where
 * its next append continues the revisions and the hash chain) in one round trip: a multi-statement
 * query, so the names go in as escaped literals. Each statement of it reads a fresh snapshot, so the
 * heads include whatever another writer committed while this one waited for the lock.
 */
const beginAndReadHeads = (streamNames: readonly string[]) => `
  begin;
  select pg_advisory_xact_lock(${APPEND_LOCK_KEY});
  select s.stream_name, e.revision, e.position, e.hash
  from unnest(array[${streamNames.map((name) => pg.escapeLiteral(name)).join(', ')}]::text[]) as s(stream_name)
  cross join lateral (
    select revision, position, metadata->>'hash' as hash from events
    where events.stream_name = s.stream_name order by revision desc limit 1
  ) e`;

/**
 * The write of a batch, as a function the store creates: under the append lock it reads where the
 * log ends, inserts the batch and notifies, and the notification is sent by the transaction it runs
 * in, so only if that commits. A batch whose heads need no reading (known-heads.ts) is that function
 * alone, its whole transaction in one round trip: a new stream's chain starts from nothing and a
 * known head's from its hash, and a stream that moved on after all (or exists, for one created) is
 * refused by the unique (stream, revision) key, which fails the statement and with it its
 * transaction. A batch that read its heads calls it in the transaction that read them (the lock is
 * held already; taking it again is a no-op). Called as one prepared statement, planned once per
 * connection with the rows bound as arrays: a multi-statement string of five statements with the
 * events' JSON escaped into it did the same work much more slowly, escaped, parsed and planned anew
 * for every batch.
 */
const APPEND_FUNCTION = `
  create or replace function event_store_append(streams text[], revisions integer[], types text[], datas jsonb[], metadatas jsonb[])
  returns table (before bigint, stream_name text, revision integer, "position" bigint)
  language plpgsql as $append$
  declare
    log_end bigint;
  begin
    perform pg_advisory_xact_lock(${APPEND_LOCK_KEY});
    select coalesce(max(events.position), 0) into log_end from events;
    return query
      with inserted as (
        insert into events (stream_name, revision, type, data, metadata)
        select * from unnest(streams, revisions, types, datas, metadatas)
        returning events.stream_name, events.revision, events.position)
      select log_end, inserted.stream_name, inserted.revision, inserted.position from inserted;
    perform pg_notify('${APPENDED_CHANNEL}', (select max(events.position) from events)::text);
  end
  $append$`;

/** Inserts rows through event_store_append; each answer row carries `before`, the log's last position before them. */
const appendRows = (client: pg.PoolClient, rows: readonly InsertedEvent[]) =>
  client.query<InsertedRow & { before: string }>({
    name: 'event-store-append',
    text: 'select before::text, stream_name, revision, position from event_store_append($1, $2, $3, $4, $5)',
    values: [rows.map((row) => row.streamName), rows.map((row) => row.revision), rows.map((row) => row.type), rows.map((row) => row.data), rows.map((row) => row.metadata)],
  });

const rowKey = (streamName: string, revision: number) => `${revision}:${streamName}`;

/**
 * Opens the transaction and checks every append of a batch against its own expected revision, in
 * submission order, each seeing the streams as the appends before it in the batch left them; those
 * that hold are written with one insert, chained to their stream's last hash.
 */
const writeAppends = async (client: pg.PoolClient, appends: readonly PendingAppend[]): Promise<WrittenBatch> => {
  const streamNames = [...new Set(appends.map((append) => append.streamName))];
  const opened = (await client.query(beginAndReadHeads(streamNames))) as unknown as pg.QueryResult[];
  const found = (opened.at(-1)?.rows ?? []) as HeadRow[];
  const insertedEvents: InsertedEvent[] = [];
  const heads = new Map<string, { revision: number; hash: string | null }>();
  const positions = new Map<string, number>();
  for (const head of found) {
    heads.set(head.stream_name, { revision: head.revision, hash: head.hash });
    positions.set(rowKey(head.stream_name, head.revision), Number(head.position));
  }

  const decided = appends.map(({ streamName, events, expected }) => {
    const head = heads.get(streamName) ?? null;
    const current = head?.revision ?? null;
    if (!expectationHolds(expected, current)) return { ok: false as const, error: wrongExpectedRevision(streamName, expected, current) };
    if (events.length === 0) return { ok: true as const, streamName, lastRevision: current };
    const firstRevision = (current ?? -1) + 1;
    const chained = chainEvents(streamName, firstRevision, head?.hash ?? null, events);
    insertedEvents.push(...rowsOf(streamName, firstRevision, chained));
    const lastRevision = firstRevision + chained.length - 1;
    heads.set(streamName, { revision: lastRevision, hash: chained.at(-1)?.metadata.hash ?? null });
    return { ok: true as const, streamName, lastRevision };
  });

  const insertedRows = insertedEvents.length > 0 ? (await appendRows(client, insertedEvents)).rows : [];
  for (const row of insertedRows) positions.set(rowKey(row.stream_name, row.revision), Number(row.position));

  const outcomes = decided.map((decision): ItemOutcome<AppendResult> => {
    if (!decision.ok) return decision;
    const { streamName, lastRevision } = decision;
    const position = lastRevision === null ? -1 : (positions.get(rowKey(streamName, lastRevision)) ?? -1);
    return { ok: true, value: { nextExpectedRevision: lastRevision ?? -1, position } };
  });
  // A batch that inserted nothing hands over an empty page, whose `before` nobody reads.
  return { outcomes, page: pageOf(Number(insertedRows[0]?.before), insertedEvents, insertedRows) };
};

/**
 * Where each append of the batch chains on, when no head needs reading: each creates its stream or
 * expects it where this store last saw it end (known-heads.ts), writes events, and no two write the
 * same stream. Undefined when the batch must read its heads.
 */
const chainStartsOf = (appends: readonly PendingAppend[], known: KnownHeads): (PendingAppend & ChainStart)[] | undefined => {
  if (new Set(appends.map((append) => append.streamName)).size !== appends.length) return undefined;
  const started: (PendingAppend & ChainStart)[] = [];
  for (const append of appends) {
    const start = append.events.length > 0 ? known.chainFrom(append.streamName, append.expected) : undefined;
    if (!start) return undefined;
    started.push({ ...append, ...start });
  }
  return started;
};

export async function createPostgresEventStore({ connectionString, logger, schemas }: PostgresEventStoreOptions): Promise<EventStore> {
  const pool = new pg.Pool({ connectionString, max: 10, ...CONNECTION_BOUNDS });
  // An idle client losing its connection emits 'error' on the pool; unhandled, it would crash the process.
  reportPoolErrors(pool, (message) => logger?.warn(`event store pool: ${message}`));

  try {
    await withTransaction(pool, async (client) => {
      // Concurrent CREATE TABLE IF NOT EXISTS can still collide on the catalog; the lock orders them.
      await client.query('select pg_advisory_xact_lock($1)', [APPEND_LOCK_KEY]);
      await client.query(`
        create table if not exists events (
          position bigserial primary key,
          stream_name text not null,
          revision integer not null,
          type text not null,
          data jsonb not null,
          metadata jsonb not null,
          unique (stream_name, revision)
        )`);
      // One organization's events in log order, for reading its history without scanning everybody's.
      await client.query(`create index if not exists events_org_position on events ((metadata->>'orgId'), position)`);
      await client.query(APPEND_FUNCTION);
    });
  } catch (error) {
    await pool.end();
    throw error;
  }

  const subscriptions = new Set<Subscription>();
  const knownHeads = createKnownHeads();

  /**
   * A commit of this store's took effect: its streams end where it left them, and its page goes to
   * the subscriptions once the appends' callers have gone on. Handed over at once, the projections'
   * work on it ran before any caller's: a cache hit's answer waited behind its own results row.
   */
  const committedWith = (committed: (page?: LocalPage) => void, page: LocalPage) => {
    for (const event of page.events) knownHeads.saw(event.streamName, event.revision, event.metadata.hash ?? null);
    setImmediate(() => committed(page));
  };

  /** A batch whose transaction failed before its commit: rolled back, and each append given its own fate. */
  const refused = async (client: pg.PoolClient, appends: readonly PendingAppend[], error: unknown): Promise<ItemOutcome<AppendResult>[]> => {
    const rolledBack = await client.query('rollback').then(
      () => true,
      () => false,
    );
    // A connection that cannot even roll back is broken: it is dropped, not returned to the pool.
    client.release(!rolledBack);
    if (appends.length === 1) return [{ ok: false, error: asConflict(error, appends[0]?.streamName ?? '') }];
    // Something the database refused (a value jsonb cannot hold, a writer outside this lock) must
    // fail only its own append: retried one by one, each append meets its own fate.
    const alone: ItemOutcome<AppendResult>[] = [];
    for (const append of appends) alone.push(...(await commitAppends([append])));
    return alone;
  };

  const commitOnKnownHeads = async (appends: readonly (PendingAppend & ChainStart)[]): Promise<ItemOutcome<AppendResult>[]> => {
    const chains = appends.map(({ streamName, events, firstRevision, previousHash }) => ({
      streamName,
      firstRevision,
      chained: chainEvents(streamName, firstRevision, previousHash, events),
    }));
    const rows = chains.flatMap(({ streamName, firstRevision, chained }) => rowsOf(streamName, firstRevision, chained));
    const client = await pool.connect();
    let inserted: InsertedRow[];
    let before: number;
    const committed = local.committing();
    try {
      const result = await appendRows(client, rows);
      inserted = result.rows;
      before = Number(result.rows[0]?.before);
    } catch (error) {
      // The server's own refusal (it has a code) failed the statement before its commit; anything
      // else (a lost connection) leaves unknown whether the commit took effect: nobody is told it did not.
      committed();
      if ((error as { code?: string }).code === undefined) {
        client.release(error instanceof Error ? error : true);
        throw error;
      }
      return refused(client, appends, error);
    }
    client.release();
    committedWith(committed, pageOf(before, rows, inserted));
    const positions = new Map<string, number>();
    for (const row of inserted) positions.set(row.stream_name, Math.max(positions.get(row.stream_name) ?? 0, Number(row.position)));
    return chains.map(({ streamName, firstRevision, chained }) => ({
      ok: true,
      value: { nextExpectedRevision: firstRevision + chained.length - 1, position: positions.get(streamName) ?? -1 },
    }));
  };

  const commitAppends = async (appends: readonly PendingAppend[]): Promise<ItemOutcome<AppendResult>[]> => {
    const started = chainStartsOf(appends, knownHeads);
    if (started) return commitOnKnownHeads(started);
    const client = await pool.connect();
    let written: WrittenBatch;
    try {
      // One lock for the whole batch. Positions come from a sequence, allocated at insert time but
      // visible only at commit: two transactions appending at once could commit positions out of
      // order (11 before 10), and a subscriber that already read past 11 would never see 10. One
      // writing transaction at a time (across processes too) makes commit order equal position order.
      written = await writeAppends(client, appends);
    } catch (error) {
      return refused(client, appends, error);
    }
    const committed = local.committing();
    try {
      // event_store_append's notification is delivered to listeners when (and only if) this commits.
      await client.query('commit');
    } catch (error) {
      committed();
      // Whether a failed commit took effect is unknown: no append is retried, each caller is told.
      client.release(error instanceof Error ? error : true);
      throw error;
    }
    client.release();
    committedWith(committed, written.page);
    return written.outcomes;
  };

  const groupCommit = createGroupCommit(commitAppends, { maxWeight: MAX_EVENTS_PER_COMMIT, weightOf: (append) => append.events.length });

  async function append(
    streamName: string,
    events: readonly EventEnvelope[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    // Checked before queueing: a bad event fails alone, without holding up other writers.
    const prepared = schemas ? events.map((event) => schemas.prepare(event)) : events;
    return groupCommit.submit({ streamName, events: prepared, expected });
  }

  const toCurrent = (row: EventRow) => (schemas ? schemas.upcast(toRecordedEvent(row)) : toRecordedEvent(row));

  async function readStream(streamName: string, { fromRevision = 0 }: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const result = await pool.query<EventRow>(
      `select ${SELECT_COLUMNS} from events where stream_name = $1 and revision >= $2 order by revision`,
      [streamName, fromRevision],
    );
    const head = result.rows.at(-1);
    if (head) knownHeads.saw(streamName, head.revision, head.metadata.hash ?? null);
    return result.rows.map(toCurrent);
  }

  async function readAll({ after, limit, asStored = false, orgId }: ReadAllOptions): Promise<RecordedEvent[]> {
    const result =
      orgId === undefined
        ? await pool.query<EventRow>(`select ${SELECT_COLUMNS} from events where position > $1 order by position limit $2`, [after ?? 0, limit])
        : await pool.query<EventRow>(
            `select ${SELECT_COLUMNS} from events where metadata->>'orgId' = $3 and position > $1 order by position limit $2`,
            [after ?? 0, limit, orgId],
          );
    return result.rows.map(asStored ? toRecordedEvent : toCurrent);
  }

  async function headPosition(): Promise<number | null> {
    const result = await pool.query<{ head: string | null }>('select max(position) as head from events');
    const head = result.rows[0]?.head ?? null;
    return head === null ? null : Number(head);
  }

  const notifier = createAppendNotifier(connectionString, logger);
  /** Where each subscription stands, so that pages of this store's own appends go once all have passed them. */
  const standing = new Map<symbol, number>();

  /**
   * This store's own committed appends, handed to its subscriptions as the log's next page: a
   * subscription standing where a page begins takes it without waiting for the notification and
   * reading the page back (the projections of a process that serves and renders follow its own
   * appends). Only pages not yet passed by every subscription are kept, and at most a few: one that
   * fell behind reads the log as before.
   */
  const local = (() => {
    let pages: LocalPage[] = [];
    let committing = 0;
    return {
      /**
       * A commit of this store's is on its way: the database's notification of it may come before
       * its answer does, and a subscription told of it meanwhile waits for the page instead of
       * reading it back. Call the answer with the page once committed, or with nothing if the commit failed.
       */
      committing(): (page?: LocalPage) => void {
        committing++;
        return (page) => {
          committing--;
          // Failed: whoever waited on it reads the log instead, whatever it holds.
          if (!page) return notifier.appended();
          const last = page.events.at(-1);
          if (last && standing.size > 0) {
            const slowest = Math.min(...standing.values());
            pages = [...pages.filter((kept) => (kept.events.at(-1)?.position ?? 0) > slowest), page].slice(-LOCAL_PAGES_KEPT);
          }
          // Wakes whoever waited on it, with nothing new to announce when the batch wrote nothing.
          notifier.appended(last?.position ?? 0);
        };
      },
      /** Whether a commit of this store's is on its way. */
      pending: () => committing > 0,
      /** The pages that follow `position` without a gap, as one batch (up to a page's size); undefined when none does. */
      after(position: number): RecordedEvent[] | undefined {
        const batch: RecordedEvent[] = [];
        let at = position;
        for (let page = pages.find((kept) => kept.before === at); page && batch.length < SUBSCRIPTION_PAGE_SIZE; page = pages.find((kept) => kept.before === at)) {
          batch.push(...page.events);
          at = page.events.at(-1)?.position ?? at;
        }
        return batch.length > 0 ? batch : undefined;
      },
    };
  })();
  const pagesInFlight = new Map<number, { readonly notification: number; readonly page: Promise<RecordedEvent[]> }>();

  /**
   * The subscriptions of a process (one per projection) mostly stand at the same position and wake
   * on the same notification: they share one read of the page. A read is shared only while no
   * notification came after it started, so that it covers every append its readers were told of.
   */
  const readPage = (after: number): Promise<RecordedEvent[]> => {
    const inFlight = pagesInFlight.get(after);
    if (inFlight && inFlight.notification === notifier.notifications()) return inFlight.page;
    const read = {
      notification: notifier.notifications(),
      page: readAll({ after, limit: SUBSCRIPTION_PAGE_SIZE }).finally(() => {
        if (pagesInFlight.get(after) === read) pagesInFlight.delete(after);
      }),
    };
    pagesInFlight.set(after, read);
    return read.page;
  };

  function subscribeToAll(after: number | null, handler: SubscriptionHandler): Subscription {
    let stopped = false;
    let wakePending = false;
    let wakeUp: (() => void) | undefined;

    /** The log must be read: at first, after the listener reconnected, and now and then in case a notification was lost. */
    let mustRead = true;
    /** The furthest position a notification named. */
    let announced = 0;
    const wake = (position?: number) => {
      if (position === undefined) mustRead = true;
      else announced = Math.max(announced, position);
      wakePending = true;
      wakeUp?.();
    };
    const sleepUntilWoken = () =>
      new Promise<void>((resolve) => {
        if (wakePending || stopped) return resolve();
        const finish = () => {
          clearTimeout(timer);
          wakeUp = undefined;
          resolve();
        };
        const timer = setTimeout(() => {
          mustRead = true;
          finish();
        }, SAFETY_REREAD_MS);
        wakeUp = finish;
      });

    // Listening starts before the first read, so an append committed after that read always wakes us.
    const stopListening = notifier.listen(wake);

    const key = Symbol('subscription');
    const run = async () => {
      let lastPosition = after ?? 0;
      standing.set(key, lastPosition);
      try {
        while (!stopped) {
          wakePending = false;
          const own = local.after(lastPosition);
          const reading = !own && (mustRead || (announced > lastPosition && !local.pending()));
          if (reading) mustRead = false;
          const page = own ?? (reading ? await readPage(lastPosition) : []);
          const last = page.at(-1);
          if (stopped) return;
          if (last) {
            await handler(page);
            lastPosition = last.position;
            standing.set(key, lastPosition);
          }
          if (!own && page.length < SUBSCRIPTION_PAGE_SIZE) await sleepUntilWoken();
        }
      } catch (error) {
        logger?.error(`event store subscription stopped after position ${lastPosition}: ${errorMessage(error)}`);
      } finally {
        stopped = true;
        standing.delete(key);
        await stopListening();
        subscriptions.delete(subscription);
      }
    };

    const done = run();
    const subscription: Subscription = {
      async stop() {
        stopped = true;
        wakeUp?.();
        await done;
      },
      done,
    };
    subscriptions.add(subscription);
    return subscription;
  }

  async function close(): Promise<void> {
    await Promise.all([...subscriptions].map((subscription) => subscription.stop()));
    await pool.end();
  }

  return { append, readStream, readAll, headPosition, subscribeToAll, close };
}

async function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let result: T;
  try {
    await client.query('begin');
    result = await work(client);
    await client.query('commit');
  } catch (error) {
    // A statement the server refused leaves a connection that can roll back; one lost or timed out is
    // dropped rather than returned to the pool (the server rolls back when it goes).
    const rolledBack = error instanceof pg.DatabaseError && (await client.query('rollback').then(() => true, () => false));
    client.release(!rolledBack);
    throw error;
  }
  client.release();
  return result;
}

/**
 * One LISTEN connection for all the subscriptions of a store, open while there is one: each
 * notification (and each reconnect, after which notifications may have been lost) calls every
 * listener and is counted, so that a reader can tell whether a read started before or after it.
 */
function createAppendNotifier(connectionString: string, logger: PostgresEventStoreLogger | undefined) {
  const listeners = new Set<(position?: number) => void>();
  let count = 0;
  let connection: { close(): Promise<void> } | null = null;
  /** `position`: the last one appended; without it, anything may have been (a reconnect). */
  const notifyAll = (position?: number) => {
    count++;
    for (const listener of listeners) listener(position);
  };
  return {
    notifications: () => count,
    /** This store's own append committed: its listeners are told at once, before the database's notification comes. */
    appended: (position?: number) => notifyAll(position),
    listen(onAppended: (position?: number) => void): () => Promise<void> {
      listeners.add(onAppended);
      connection ??= listenForAppends(connectionString, notifyAll, logger);
      return async () => {
        listeners.delete(onAppended);
        if (listeners.size > 0 || !connection) return;
        const closing = connection;
        connection = null;
        await closing.close();
      };
    },
  };
}

/**
 * Keeps a dedicated connection LISTENing for append notifications (a pooled client cannot, it is
 * shared), reconnecting after failures; `onAppended` is also called after every (re)connect because
 * notifications sent while no one listened are lost.
 */
function listenForAppends(
  connectionString: string,
  onAppended: (position?: number) => void,
  logger: PostgresEventStoreLogger | undefined,
): { close(): Promise<void> } {
  let closed = false;
  let client: pg.Client | undefined;
  let retryTimer: NodeJS.Timeout | undefined;

  const connect = async () => {
    const current = new pg.Client({ connectionString });
    client = current;
    let failed = false;
    const fail = (error: unknown) => {
      if (failed || closed) return;
      failed = true;
      current.end().catch(() => {});
      logger?.warn(`event store listener lost (${errorMessage(error)}); reconnecting`);
      retryTimer = setTimeout(() => void connect(), LISTENER_RETRY_MS);
    };
    current.on('error', fail);
    current.on('end', () => fail(new Error('connection ended')));
    current.on('notification', (message) => {
      const position = Number(message.payload);
      onAppended(Number.isSafeInteger(position) ? position : undefined);
    });
    try {
      await current.connect();
      await current.query(`listen ${APPENDED_CHANNEL}`);
      onAppended();
    } catch (error) {
      fail(error);
    }
  };
  void connect();

  return {
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      await client?.end().catch(() => {});
    },
  };
}
