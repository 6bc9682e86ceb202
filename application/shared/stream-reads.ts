import type { Decider } from '../../domain/shared/decider.js';
import type { DomainEvent, RecordedEvent } from '../../domain/shared/events.js';
import type { EventStore, ReadStreamOptions } from '../ports/event-store.js';

export type EventGuard<E extends DomainEvent> = (event: RecordedEvent) => event is RecordedEvent<E>;

/**
 * The events of one stream, typed by the guard of the aggregate that owns it. Each is checked: a
 * stream holding another aggregate's event is corrupt, and folding past it would hide that.
 */
export const readEvents = async <E extends DomainEvent>(
  eventStore: EventStore,
  streamName: string,
  isEvent: EventGuard<E>,
  options?: ReadStreamOptions,
): Promise<RecordedEvent<E>[]> =>
  (await eventStore.readStream(streamName, options)).map((event) => {
    if (!isEvent(event)) throw new Error(`Stream ${streamName} holds a ${event.type} event (revision ${event.revision}), which is not one of its aggregate's`);
    return event;
  });

export interface AggregatedStream<State, E extends DomainEvent> {
  readonly state: State;
  readonly events: RecordedEvent<E>[];
}

/** The state of one stream's aggregate, folded from its events (emmett's aggregateStream). */
export const aggregateStream = async <State, E extends DomainEvent>(
  eventStore: EventStore,
  streamName: string,
  decider: Pick<Decider<State, unknown, E>, 'evolve' | 'initialState' | 'isEvent'>,
): Promise<AggregatedStream<State, E>> => {
  const events = await readEvents(eventStore, streamName, decider.isEvent);
  return { state: events.reduce(decider.evolve, decider.initialState()), events };
};
