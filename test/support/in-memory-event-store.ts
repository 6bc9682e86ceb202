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
import { eventSchemaRegistry, type EventSchemaRegistry } from '../../infrastructure/event-schemas/event-schema-registry.js';
import { chainEvents } from '../../infrastructure/event-store/event-chain.js';

/**
 * The EventStore port in memory, for application services' unit tests. It passes the contract suite
 * the real adapters pass (test/int/event-store-contract.ts) and stamps and checks events with the
 * same modules the PostgreSQL adapter uses: the schema registry on append and read, the hash chain
 * of event-chain.ts. What is particular to the database stays the database's: there is no group
 * commit, no LISTEN/NOTIFY and no pool, only their outcome as a caller sees it.
 */

export interface InMemoryEventStoreOptions {
  /**
   * The service's registry when left out, as the composition root wires the real adapters; null for
   * none, as the contract suite runs the adapters, so that any event passes unchecked and unversioned.
   */
  readonly schemas?: EventSchemaRegistry | null;
  readonly logger?: { error(message: string): void };
}

/** An event as some earlier version of the service left it in the log: any shape, any schema version, no hash. */
export interface StoredEvent {
  readonly streamName: string;
  readonly type: string;
  readonly data: object;
  readonly metadata: EventMetadata;
}

export interface InMemoryEventStore extends EventStore {
  /**
   * Puts events into the log exactly as given, past the schema check and the hash chain, each at its
   * stream's next revision: what test/fixtures/legacy-event-log.ts's insertStoredEvents does to the
   * PostgreSQL table, for tests of how older events are read.
   */
  insertStored(events: readonly StoredEvent[]): void;
}

/** As in the PostgreSQL adapter: what one subscription delivery holds at most. */
const SUBSCRIPTION_PAGE_SIZE = 500;

const wrongExpectedRevision = (streamName: string, expected: ExpectedRevision, current: number | null) =>
  new DomainError(
    'conflict',
    `stream ${streamName}: expected ${expected === 'no-stream' ? 'no stream' : `revision ${expected}`}, ` +
      `found ${current === null ? 'no stream' : `revision ${current}`}`,
  );

const expectationHolds = (expected: ExpectedRevision, current: number | null) =>
  expected === 'any' || (expected === 'no-stream' ? current === null : current === expected);

/**
 * What jsonb keeps of a value: JSON's text of it (dates as ISO strings, undefined members gone). A
 * NUL character is refused as PostgreSQL refuses it, so a test cannot rely on what the real store rejects.
 */
const asJsonb = <T>(value: T, streamName: string): T => {
  const text = JSON.stringify(value);
  if (text.includes('\\u0000')) {
    throw Object.assign(new Error(`stream ${streamName}: unsupported Unicode escape sequence (\\u0000 cannot be converted to text)`), { code: '22P05' });
  }
  return JSON.parse(text) as T;
};

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

export const createInMemoryEventStore = ({ schemas = eventSchemaRegistry, logger }: InMemoryEventStoreOptions = {}): InMemoryEventStore => {
  /** The log as stored, in position order; positions start at 1 like a bigserial. */
  const log: RecordedEvent[] = [];
  const streams = new Map<string, RecordedEvent[]>();
  const wakers = new Set<() => void>();
  const subscriptions = new Set<Subscription>();
  let closed = false;

  const assertOpen = () => {
    if (closed) throw new Error('the in-memory event store is closed');
  };

  const toCurrent = (event: RecordedEvent): RecordedEvent => (schemas ? schemas.upcast(event) : event);
  /** Every read gets copies, as every query to a database does: a caller changing what it read changes nothing stored. */
  const copy = (event: RecordedEvent): RecordedEvent => structuredClone(event);

  const store = (streamName: string, events: readonly RecordedEvent[]) => {
    log.push(...events);
    streams.set(streamName, [...(streams.get(streamName) ?? []), ...events]);
    for (const wake of wakers) wake();
  };

  async function append(streamName: string, events: readonly EventEnvelope[], expected: ExpectedRevision): Promise<AppendResult> {
    assertOpen();
    // Checked before anything is written, as the PostgreSQL adapter checks before queueing.
    const prepared = schemas ? events.map((event) => schemas.prepare(event)) : events;
    // Another writer may go first, as it may while a real append waits for its transaction.
    await Promise.resolve();
    assertOpen();
    const stream = streams.get(streamName) ?? [];
    const head = stream.at(-1) ?? null;
    const current = head?.revision ?? null;
    if (!expectationHolds(expected, current)) throw wrongExpectedRevision(streamName, expected, current);
    if (prepared.length === 0) return { nextExpectedRevision: current ?? -1, position: head?.position ?? -1 };

    const firstRevision = (current ?? -1) + 1;
    const chained = chainEvents(streamName, firstRevision, head?.metadata.hash ?? null, prepared);
    // Converted as a whole before any is stored: an append that cannot be stored stores nothing.
    const stored = chained.map(
      (event, index): RecordedEvent => ({
        type: event.type,
        data: asJsonb(event.data, streamName),
        metadata: asJsonb(event.metadata, streamName),
        streamName,
        revision: firstRevision + index,
        position: log.length + 1 + index,
      }),
    );
    store(streamName, stored);
    const last = stored.at(-1) as RecordedEvent;
    return { nextExpectedRevision: last.revision, position: last.position };
  }

  async function readStream(streamName: string, { fromRevision = 0 }: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    assertOpen();
    return (streams.get(streamName) ?? []).filter((event) => event.revision >= fromRevision).map((event) => toCurrent(copy(event)));
  }

  async function readAll({ after, limit, asStored = false, orgId }: ReadAllOptions): Promise<RecordedEvent[]> {
    assertOpen();
    const page: RecordedEvent[] = [];
    // Positions are 1-based and dense: the event after position p sits at index p.
    for (let index = Math.max(after ?? 0, 0); index < log.length && page.length < limit; index++) {
      const event = log[index] as RecordedEvent;
      if (orgId === undefined || event.metadata.orgId === orgId) page.push(asStored ? copy(event) : toCurrent(copy(event)));
    }
    return page;
  }

  async function headPosition(): Promise<number | null> {
    assertOpen();
    return log.at(-1)?.position ?? null;
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
        wakeUp = () => {
          wakeUp = undefined;
          resolve();
        };
      });
    wakers.add(wake);

    const run = async () => {
      let lastPosition = after ?? 0;
      try {
        while (!stopped) {
          wakePending = false;
          const page = await readAll({ after: lastPosition, limit: SUBSCRIPTION_PAGE_SIZE });
          const last = page.at(-1);
          if (stopped) return;
          if (last) {
            await handler(page);
            lastPosition = last.position;
          }
          if (page.length < SUBSCRIPTION_PAGE_SIZE) await sleepUntilWoken();
        }
      } catch (error) {
        logger?.error(`event store subscription stopped after position ${lastPosition}: ${errorMessage(error)}`);
      } finally {
        stopped = true;
        wakers.delete(wake);
        subscriptions.delete(subscription);
      }
    };

    // Started on the next tick, as the real adapters start theirs, never inside subscribeToAll's caller.
    const done = Promise.resolve().then(run);
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
    closed = true;
  }

  function insertStored(events: readonly StoredEvent[]): void {
    assertOpen();
    for (const { streamName, type, data, metadata } of events) {
      const revision = (streams.get(streamName)?.at(-1)?.revision ?? -1) + 1;
      store(streamName, [{ type, data: asJsonb(data, streamName), metadata: asJsonb(metadata, streamName), streamName, revision, position: log.length + 1 }]);
    }
  }

  return { append, readStream, readAll, headPosition, subscribeToAll, close, insertStored };
};
