import type { Decider } from '../../domain/shared/decider.js';
import type { DomainEvent } from '../../domain/shared/events.js';
import { retryAfterConflict } from './conflict-retries.js';
import { toEnvelopes, type CommandDeps, type CommandResult } from './command-handler.js';
import type { RequestContext } from './request-context.js';
import { readEvents } from './stream-reads.js';

/**
 * Commands on one busy stream (an organization's account, charged by every render) without
 * serialising them on its revision. Commands that arrive while an append of their stream is in
 * flight queue up; the next batch is decided one command after another against the folded state,
 * and appended together with the one expected revision. A command the state refuses fails alone.
 *
 * The stream's folded state and revision stay cached between batches, so a command reads only the
 * events appended since (by other processes, or by writers that do not go through this batcher),
 * never the whole ever-growing stream. An append that conflicts all the same is decided again on
 * the newer state.
 */
export interface CommandBatcher<State, Command, Event extends DomainEvent> {
  /**
   * Decides and appends one command. `position` is that of the batch's append, which includes this
   * command's events: waiting for it is waiting for them.
   */
  handle(id: string, command: Command, context: RequestContext): Promise<CommandResult<State, Event>>;
}

export interface CommandBatcherOptions {
  /** Streams whose state is kept between batches; the least recently used idle one is dropped first. */
  readonly maxStreams?: number;
  /** Commands decided and appended together at most. */
  readonly maxBatch?: number;
}

interface Pending<State, Command, Event extends DomainEvent> {
  readonly command: Command;
  readonly context: RequestContext;
  resolve(result: CommandResult<State, Event>): void;
  reject(error: unknown): void;
}

interface StreamSlot<State, Command, Event extends DomainEvent> {
  state: State;
  /** Revision of the last event folded into `state`; null while the stream has none. */
  revision: number | null;
  /** Global position of that event. */
  position: number | null;
  readonly queue: Pending<State, Command, Event>[];
  draining: boolean;
}

type Decision<State, Event> = { readonly events: Event[]; readonly state: State } | { readonly error: unknown };

export const createCommandBatcher = <State, Command, Event extends DomainEvent>(
  deps: CommandDeps,
  decider: Decider<State, Command, Event>,
  /** The stream an id names: the batcher is bound to one aggregate, as commandHandler is. */
  streamOf: (id: string) => string,
  { maxStreams = 1_000, maxBatch = 500 }: CommandBatcherOptions = {},
): CommandBatcher<State, Command, Event> => {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const slots = new Map<string, StreamSlot<State, Command, Event>>();

  const slotFor = (streamName: string) => {
    const slot = slots.get(streamName) ?? { state: decider.initialState(), revision: null, position: null, queue: [], draining: false };
    slots.delete(streamName);
    slots.set(streamName, slot);
    return slot;
  };

  const dropIdleSlots = () => {
    for (const [streamName, slot] of slots) {
      if (slots.size <= maxStreams) return;
      if (!slot.draining && slot.queue.length === 0) slots.delete(streamName);
    }
  };

  /** Folds what was appended to the stream after the cached revision. */
  const catchUp = async (streamName: string, slot: StreamSlot<State, Command, Event>) => {
    const after = slot.revision ?? -1;
    const newer = await readEvents(deps.eventStore, streamName, decider.isEvent, { fromRevision: after + 1 });
    for (const event of newer) {
      // A reader that ignores `fromRevision` (a wrapper, an old adapter) must not fold an event twice.
      if (event.revision <= (slot.revision ?? -1)) continue;
      slot.state = decider.evolve(slot.state, event);
      slot.revision = event.revision;
      slot.position = event.position;
    }
  };

  const decideInOrder = (state: State, batch: readonly Pending<State, Command, Event>[]) => {
    let current = state;
    const decisions = batch.map(({ command }): Decision<State, Event> => {
      try {
        const events = decider.decide(command, current);
        current = events.reduce(decider.evolve, current);
        return { events, state: current };
      } catch (error) {
        return { error };
      }
    });
    return { decisions, state: current };
  };

  const settle = async (streamName: string, slot: StreamSlot<State, Command, Event>, batch: readonly Pending<State, Command, Event>[]) => {
    for (let attempt = 1; ; attempt++) {
      // Every batch starts from the stream as it is now: a refusal (not enough credits) or a no-op
      // is then as exact as the append of one that writes, which its expected revision checks.
      await catchUp(streamName, slot);
      const { decisions, state } = decideInOrder(slot.state, batch);
      const envelopes = decisions.flatMap((decision, index) =>
        'events' in decision && batch[index] ? toEnvelopes(decision.events, batch[index].context, deps) : [],
      );
      if (envelopes.length > 0) {
        try {
          const appended = await deps.eventStore.append(streamName, envelopes, slot.revision ?? 'no-stream');
          slot.state = state;
          slot.revision = appended.nextExpectedRevision;
          slot.position = appended.position;
        } catch (error) {
          // Conflicts come only from writers elsewhere, and each retry starts from what they wrote.
          if (await retryAfterConflict(error, attempt)) continue;
          throw error;
        }
      }
      decisions.forEach((decision, index) => {
        const pending = batch[index];
        if (!pending) return;
        if ('error' in decision) pending.reject(decision.error);
        else pending.resolve({ events: decision.events, state: decision.state, position: slot.position });
      });
      return;
    }
  };

  const drain = async (streamName: string, slot: StreamSlot<State, Command, Event>) => {
    slot.draining = true;
    try {
      while (slot.queue.length > 0) {
        const batch = slot.queue.splice(0, maxBatch);
        try {
          await settle(streamName, slot, batch);
        } catch (error) {
          for (const pending of batch) pending.reject(error);
        }
      }
    } finally {
      slot.draining = false;
    }
  };

  return {
    handle(id, command, context) {
      const streamName = streamOf(id);
      return new Promise((resolve, reject) => {
        const slot = slotFor(streamName);
        slot.queue.push({ command, context, resolve, reject });
        if (!slot.draining) void drain(streamName, slot);
        dropIdleSlots();
      });
    },
  };
};
