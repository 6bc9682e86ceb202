import pg from 'pg';
import type {
  AppendResult,
  EventStore,
  ExpectedRevision,
  ReadAllOptions,
  Subscription,
  SubscriptionHandler,
} from '../../application/ports/event-store.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { EventEnvelope, EventMetadata, RecordedEvent } from '../../domain/shared/events.js';
import type { EventSchemaRegistry } from '../event-schemas/event-schema-registry.js';
import { chainEvents } from './event-chain.js';

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

/** Key of the transaction-level advisory lock every append and the schema setup take. */
const APPEND_LOCK_KEY = 7_411_902_365;
const APPENDED_CHANNEL = 'event_store_appended';
const SUBSCRIPTION_PAGE_SIZE = 500;
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

export async function createPostgresEventStore({ connectionString, logger, schemas }: PostgresEventStoreOptions): Promise<EventStore> {
  const pool = new pg.Pool({ connectionString, max: 10 });
  // An idle client losing its connection emits 'error' on the pool; unhandled, it would crash the process.
  pool.on('error', (error) => logger?.warn(`event store pool: ${error.message}`));

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
    });
  } catch (error) {
    await pool.end();
    throw error;
  }

  const subscriptions = new Set<Subscription>();

  async function append(
    streamName: string,
    events: readonly EventEnvelope[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    // Checked before taking the append lock: a bad event fails without holding up other writers.
    const prepared = schemas ? events.map((event) => schemas.prepare(event)) : events;
    try {
      return await withTransaction(pool, async (client) => {
        // Positions come from a sequence, allocated at insert time but visible only at commit. Two
        // concurrent appenders could commit positions out of order (11 before 10), and a subscriber
        // that already read past 11 would never see 10. One append at a time makes commit order
        // equal position order; the lock is released only after the commit is visible.
        await client.query('select pg_advisory_xact_lock($1)', [APPEND_LOCK_KEY]);
        const last = await client.query<{ revision: number; position: string; hash: string | null }>(
          "select revision, position, metadata->>'hash' as hash from events where stream_name = $1 order by revision desc limit 1",
          [streamName],
        );
        const current = last.rows[0] ?? null;
        const currentRevision = current?.revision ?? null;
        if (
          (expected === 'no-stream' && currentRevision !== null) ||
          (typeof expected === 'number' && currentRevision !== expected)
        ) {
          throw wrongExpectedRevision(streamName, expected, currentRevision);
        }
        if (prepared.length === 0) {
          return { nextExpectedRevision: currentRevision ?? -1, position: Number(current?.position ?? -1) };
        }

        const firstRevision = (currentRevision ?? -1) + 1;
        const values: unknown[] = [streamName];
        const rows = chainEvents(streamName, firstRevision, current?.hash ?? null, prepared).map((event, index) => {
          values.push(firstRevision + index, event.type, JSON.stringify(event.data), JSON.stringify(event.metadata));
          const p = values.length;
          return `($1, $${p - 3}, $${p - 2}, $${p - 1}::jsonb, $${p}::jsonb)`;
        });
        const inserted = await client.query<{ position: string }>(
          `insert into events (stream_name, revision, type, data, metadata) values ${rows.join(', ')} returning position`,
          values,
        );
        const lastPosition = inserted.rows.at(-1)?.position ?? '-1';
        // Delivered to listeners when (and only if) this transaction commits.
        await client.query('select pg_notify($1, $2)', [APPENDED_CHANNEL, lastPosition]);
        return { nextExpectedRevision: firstRevision + prepared.length - 1, position: Number(lastPosition) };
      });
    } catch (error) {
      if ((error as { code?: string }).code === '23505') {
        throw new DomainError('conflict', `stream ${streamName}: a concurrent append took the expected revision`);
      }
      throw error;
    }
  }

  const toCurrent = (row: EventRow) => (schemas ? schemas.upcast(toRecordedEvent(row)) : toRecordedEvent(row));

  async function readStream(streamName: string): Promise<RecordedEvent[]> {
    const result = await pool.query<EventRow>(
      `select ${SELECT_COLUMNS} from events where stream_name = $1 order by revision`,
      [streamName],
    );
    return result.rows.map(toCurrent);
  }

  async function readAll({ after, limit, asStored = false }: ReadAllOptions): Promise<RecordedEvent[]> {
    const result = await pool.query<EventRow>(
      `select ${SELECT_COLUMNS} from events where position > $1 order by position limit $2`,
      [after ?? 0, limit],
    );
    return result.rows.map(asStored ? toRecordedEvent : toCurrent);
  }

  async function headPosition(): Promise<number | null> {
    const result = await pool.query<{ head: string | null }>('select max(position) as head from events');
    const head = result.rows[0]?.head ?? null;
    return head === null ? null : Number(head);
  }

  function subscribeToAll(after: number | null, handler: SubscriptionHandler): Subscription {
    let stopped = false;
    let wakePending = false;
    let wakeUp: (() => void) | undefined;

    const wake = () => {
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
        const timer = setTimeout(finish, SAFETY_REREAD_MS);
        wakeUp = finish;
      });

    // Listening starts before the first read, so an append committed after that read always wakes us.
    const listener = listenForAppends(connectionString, wake, logger);

    const run = async () => {
      let lastPosition = after ?? 0;
      try {
        while (!stopped) {
          wakePending = false;
          const page = await readAll({ after: lastPosition, limit: SUBSCRIPTION_PAGE_SIZE });
          for (const event of page) {
            if (stopped) return;
            await handler(event);
            lastPosition = event.position;
          }
          if (page.length < SUBSCRIPTION_PAGE_SIZE) await sleepUntilWoken();
        }
      } catch (error) {
        logger?.error(`event store subscription stopped after position ${lastPosition}: ${errorMessage(error)}`);
      } finally {
        stopped = true;
        await listener.close();
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
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Keeps a dedicated connection LISTENing for append notifications (a pooled client cannot, it is
 * shared), reconnecting after failures; `onAppended` is also called after every (re)connect because
 * notifications sent while no one listened are lost.
 */
function listenForAppends(
  connectionString: string,
  onAppended: () => void,
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
    current.on('notification', onAppended);
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
