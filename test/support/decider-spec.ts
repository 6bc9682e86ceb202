import { expect } from 'vitest';
import { foldEvents, type Decider } from '../../domain/shared/decider.js';
import { DomainError, type ErrorCode } from '../../domain/shared/errors.js';
import type { DomainEvent } from '../../domain/shared/events.js';

/** Given/When/Then for deciders, in the style of emmett's DeciderSpecification. */
export const deciderSpec = <State, Command, Event extends DomainEvent>(decider: Decider<State, Command, Event>) => ({
  given: (events: readonly Event[]) => ({
    when: (command: Command) => {
      const run = () => decider.decide(command, foldEvents(decider, events));
      return {
        then: (expected: readonly Event[]) => expect(run()).toEqual(expected),
        thenNothingHappens: () => expect(run()).toEqual([]),
        thenThrows: (code: ErrorCode, message?: RegExp) => {
          let caught: unknown;
          try {
            run();
          } catch (error) {
            caught = error;
          }
          expect(caught).toBeInstanceOf(DomainError);
          expect((caught as DomainError).code).toBe(code);
          if (message) expect((caught as DomainError).message).toMatch(message);
        },
      };
    },
  }),
});
