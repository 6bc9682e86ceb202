import type { DomainEvent, RecordedEvent } from './events.js';

/**
 * An aggregate's behaviour as three pure functions (emmett's Decider), plus the guard that tells its
 * events: what is read from its stream is checked with it rather than cast.
 */
export interface Decider<State, Command, Event extends DomainEvent> {
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
  initialState(): State;
  isEvent(event: RecordedEvent): event is RecordedEvent<Event>;
}

export const foldEvents = <State, Event extends DomainEvent>(
  decider: Pick<Decider<State, unknown, Event>, 'evolve' | 'initialState'>,
  events: readonly Event[],
): State => events.reduce(decider.evolve, decider.initialState());

/** Compile-time exhaustiveness for `switch` over unions; unreachable at run time. */
export const assertNever = (value: never): never => {
  throw new Error(`Unexpected value: ${JSON.stringify(value)}`);
};
