import type { Decider } from '../../domain/shared/decider.js';
import type { DomainEvent, EventEnvelope } from '../../domain/shared/events.js';
import type { Clock, IdGenerator } from '../ports/clock.js';
import type { EventStore } from '../ports/event-store.js';
import { retryAfterConflict } from './conflict-retries.js';
import type { RequestContext } from './request-context.js';
import { aggregateStream } from './stream-reads.js';

export interface CommandDeps {
  readonly eventStore: EventStore;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

export interface CommandResult<State, Event extends DomainEvent> {
  readonly events: Event[];
  readonly state: State;
  /** Global position of the last event this command wrote, or of the stream's last event when it wrote none. */
  readonly position: number | null;
}

const SCHEMA_VERSION = 1;

export const toEnvelopes = (
  events: readonly DomainEvent[],
  context: RequestContext,
  { clock, ids }: Pick<CommandDeps, 'clock' | 'ids'>,
  causationId: string = context.correlationId,
): EventEnvelope[] => {
  const occurredAt = clock.now().toISOString();
  return events.map((event) => ({
    type: event.type,
    data: event.data,
    metadata: {
      eventId: ids.next(),
      schemaVersion: SCHEMA_VERSION,
      occurredAt,
      orgId: context.caller.orgId,
      actor: context.caller.actor,
      correlationId: context.correlationId,
      causationId,
    },
  }));
};

/** A stream's state as the caller read it, and the revision of its last event then. */
export interface KnownStream<State> {
  readonly state: State;
  readonly revision: number;
}

export interface HandleOptions<State = unknown> {
  /**
   * The command creates its stream (a new request under a fresh id): it is decided against the
   * initial state without reading, and appended with 'no-stream'. Should the stream exist after all,
   * the conflict sends it through the usual read-and-decide, where the decider refuses it.
   */
  readonly newStream?: boolean;
  /**
   * The stream as the caller last read it: the command is decided against that state and appended
   * at that revision, without a read. Should the stream have moved on, the conflict sends it through
   * the usual read-and-decide; so does a command that decides nothing (its position is the stream's).
   */
  readonly known?: KnownStream<State>;
}

/**
 * Read the stream, decide, append with the revision that was read. On a concurrency conflict the
 * command is decided again against the newer state: a command that still makes sense then goes
 * through, one that does not (a second create) fails with the decider's own error.
 */
const handleCommand = async <State, Command, Event extends DomainEvent>(
  deps: CommandDeps,
  decider: Decider<State, Command, Event>,
  streamName: string,
  command: Command,
  context: RequestContext,
  { newStream = false, known }: HandleOptions<State> = {},
): Promise<CommandResult<State, Event>> => {
  for (let attempt = 1; ; attempt++) {
    const trusted = attempt === 1 ? known : undefined;
    const { state, events: recorded } = trusted
      ? { state: trusted.state, events: [] }
      : newStream && attempt === 1
        ? { state: decider.initialState(), events: [] }
        : await aggregateStream(deps.eventStore, streamName, decider);
    const events = decider.decide(command, state);
    const last = recorded.at(-1);
    if (events.length === 0) {
      if (trusted) continue;
      return { events, state, position: last?.position ?? null };
    }
    try {
      const result = await deps.eventStore.append(
        streamName,
        toEnvelopes(events, context, deps),
        trusted ? trusted.revision : last ? last.revision : 'no-stream',
      );
      return { events, state: events.reduce(decider.evolve, state), position: result.position };
    } catch (error) {
      if (!(await retryAfterConflict(error, attempt))) throw error;
    }
  }
};

/**
 * A decider bound once to how its streams are named, as emmett's CommandHandler(evolve,
 * initialState): callers name the aggregate by its id and give a command typed by that decider,
 * never a decider or a stream of their own choosing.
 */
export const commandHandler =
  <State, Command, Event extends DomainEvent>(decider: Decider<State, Command, Event>, streamOf: (id: string) => string) =>
  (deps: CommandDeps, id: string, command: Command, context: RequestContext, options: HandleOptions<State> = {}): Promise<CommandResult<State, Event>> =>
    handleCommand(deps, decider, streamOf(id), command, context, options);
