import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AppendExpectedRevision,
  type JSONType,
  type Position,
} from '@eventstore/db-client';
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

/** The subset of a pino (or console) logger this adapter uses. */
export interface EventStoreDbLogger {
  error(message: string): void;
}

export interface EventStoreDbEventStoreOptions {
  /** An `esdb://` (or `kurrentdb://`) connection string, e.g. EVENTSTORE_URL. */
  readonly connectionString: string;
  readonly logger?: EventStoreDbLogger;
  /** Checks and versions events on append, upcasts them on read; without it events pass as they are. */
  readonly schemas?: EventSchemaRegistry;
}

/** Raw events fetched per round trip by readAll; system events in between are dropped afterwards. */
const MIN_READ_BATCH = 256;
/** An 'any' append retried after another writer moved the stream between reading its head and appending. */
const ANY_APPEND_ATTEMPTS = 5;

/** The fields of the client's recorded event this adapter reads. */
interface StoredEvent {
  readonly streamId: string;
  readonly revision: bigint;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: unknown;
  readonly position?: Position;
}

const isSystemEvent = (type: string) => type.startsWith('$');

/** The port's positions are commit positions; `after` names the event at exactly that position. */
const positionOf = (after: number): Position => ({ commit: BigInt(after), prepare: BigInt(after) });

/** Orders log positions; -1, 0, 1 like a comparator. */
const comparePositions = (a: Position, b: Position) =>
  a.commit !== b.commit ? (a.commit < b.commit ? -1 : 1) : a.prepare === b.prepare ? 0 : a.prepare < b.prepare ? -1 : 1;

/** The revision an append must find: the one just read, so nothing slips in between the chain's links. */
const pinnedRevision = (lastRevision: number | null): AppendExpectedRevision => (lastRevision === null ? NO_STREAM : BigInt(lastRevision));

const expectationHolds = (expected: ExpectedRevision, lastRevision: number | null) =>
  expected === 'any' || (expected === 'no-stream' ? lastRevision === null : lastRevision === expected);

const describeRevision = (revision: ExpectedRevision | null) =>
  revision === null || revision === 'no-stream' ? 'no stream' : `revision ${revision}`;

const toRecordedEvent = (event: StoredEvent): RecordedEvent => ({
  type: event.type,
  data: event.data as object,
  metadata: event.metadata as EventMetadata,
  streamName: event.streamId,
  revision: Number(event.revision),
  // Servers older than 22.6 return no position on stream reads; there is nothing better to offer.
  position: event.position ? Number(event.position.commit) : -1,
});

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function createEventStoreDbEventStore({ connectionString, logger, schemas }: EventStoreDbEventStoreOptions): EventStore {
  const client = EventStoreDBClient.connectionString(connectionString);
  const subscriptions = new Set<Subscription>();

  const toCurrent = (event: StoredEvent) => (schemas ? schemas.upcast(toRecordedEvent(event)) : toRecordedEvent(event));

  /** The stream's last event (revision and hash), or null for a stream that does not exist. */
  async function head(streamName: string): Promise<{ revision: number; hash: string | null } | null> {
    try {
      for await (const resolved of client.readStream(streamName, { direction: BACKWARDS, fromRevision: END, maxCount: 1 })) {
        if (resolved.event) return { revision: Number(resolved.event.revision), hash: toRecordedEvent(resolved.event).metadata.hash ?? null };
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return null;
      throw error;
    }
    return null;
  }

  async function append(
    streamName: string,
    events: readonly EventEnvelope[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    const prepared = schemas ? events.map((event) => schemas.prepare(event)) : events;
    for (let attempt = 1; ; attempt++) {
      // Each event names its predecessor's hash, so the append is pinned to the head it was chained to.
      const last = await head(streamName);
      const lastRevision = last?.revision ?? null;
      if (!expectationHolds(expected, lastRevision)) {
        throw new DomainError('conflict', `stream ${streamName}: expected ${describeRevision(expected)}, found ${describeRevision(lastRevision)}`);
      }
      if (prepared.length === 0) return { nextExpectedRevision: lastRevision ?? -1, position: -1 };
      const chained = chainEvents(streamName, (lastRevision ?? -1) + 1, last?.hash ?? null, prepared);
      try {
        const result = await client.appendToStream(
          streamName,
          chained.map((event) =>
            jsonEvent({
              // The envelope's id doubles as the server's event id, which makes retried appends idempotent.
              id: event.metadata.eventId,
              type: event.type,
              data: event.data as JSONType,
              metadata: { ...event.metadata },
            }),
          ),
          { expectedRevision: pinnedRevision(lastRevision) },
        );
        return {
          nextExpectedRevision: Number(result.nextExpectedRevision),
          position: result.position ? Number(result.position.commit) : -1,
        };
      } catch (error) {
        if (!(error instanceof WrongExpectedVersionError)) throw error;
        // Only 'any' may chain onto whatever head another writer just made.
        if (expected !== 'any' || attempt >= ANY_APPEND_ATTEMPTS) {
          throw new DomainError('conflict', `stream ${streamName}: ${error.message}`);
        }
      }
    }
  }

  async function readStream(streamName: string, { fromRevision = 0 }: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of client.readStream(streamName, { fromRevision: BigInt(fromRevision) })) {
        if (resolved.event) events.push(toCurrent(resolved.event));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  async function readAll({ after, limit, asStored = false, orgId }: ReadAllOptions): Promise<RecordedEvent[]> {
    const collected: RecordedEvent[] = [];
    // Reads from a position include the event at that position, which the port excludes.
    let lastSeen: Position | null = after === null ? null : positionOf(after);
    // At least two, so that a batch starting at the already seen event still makes progress.
    const batchSize = Math.max(limit + 1, MIN_READ_BATCH);
    for (;;) {
      // The client's readAll takes no server-side filter, so system events are dropped here.
      const read = client.readAll({ fromPosition: lastSeen ?? START, maxCount: batchSize });
      let fetched = 0;
      for await (const resolved of read) {
        fetched += 1;
        const event = resolved.event;
        if (!event?.position || (lastSeen && comparePositions(event.position, lastSeen) <= 0)) continue;
        lastSeen = event.position;
        if (isSystemEvent(event.type)) continue;
        const recorded = asStored ? toRecordedEvent(event) : toCurrent(event);
        // Metadata is not indexed by the server: an organization's events are picked out here.
        if (orgId !== undefined && recorded.metadata.orgId !== orgId) continue;
        collected.push(recorded);
        if (collected.length === limit) {
          await read.cancel();
          return collected;
        }
      }
      if (fetched < batchSize) return collected;
    }
  }

  async function headPosition(): Promise<number | null> {
    // Newest first; system events at the end of the log are skipped, as readAll skips them.
    for await (const resolved of client.readAll({ direction: BACKWARDS, fromPosition: END })) {
      const event = resolved.event;
      if (event?.position && !isSystemEvent(event.type)) return Number(event.position.commit);
    }
    return null;
  }

  function subscribeToAll(after: number | null, handler: SubscriptionHandler): Subscription {
    const stream = client.subscribeToAll({
      fromPosition: after === null ? START : positionOf(after),
      filter: excludeSystemEvents(),
    });
    let stopped = false;

    const run = async () => {
      let lastSeen: Position | null = after === null ? null : positionOf(after);
      try {
        for await (const resolved of stream) {
          if (stopped) return;
          const event = resolved.event;
          if (!event?.position || (lastSeen && comparePositions(event.position, lastSeen) <= 0)) continue;
          // The server pushes events one by one; each is handed on as it arrives, a batch of one.
          await handler([toCurrent(event)]);
          lastSeen = event.position;
        }
        if (!stopped) logger?.error('EventStoreDB subscription ended by the server');
      } catch (error) {
        // Destroying the stream on stop() surfaces as a premature close here; only other errors matter.
        if (!stopped) logger?.error(`EventStoreDB subscription failed: ${errorMessage(error)}`);
      } finally {
        stopped = true;
        await stream.unsubscribe().catch(() => {});
        subscriptions.delete(subscription);
      }
    };

    const done = run();
    const subscription: Subscription = {
      async stop() {
        if (!stopped) {
          stopped = true;
          await stream.unsubscribe().catch(() => {});
          // Ends the pending iteration; a handler call in flight is awaited through `done`.
          stream.destroy();
        }
        await done;
      },
      done,
    };
    subscriptions.add(subscription);
    return subscription;
  }

  async function close(): Promise<void> {
    await Promise.all([...subscriptions].map((subscription) => subscription.stop()));
    await client.dispose();
  }

  return { append, readStream, readAll, headPosition, subscribeToAll, close };
}
