/** Time and identity come from outside the domain so tests and replays are deterministic. */
export interface Clock {
  now(): Date;
}

export interface IdGenerator {
  /** A new uuidv7: unique and roughly time ordered. */
  next(): string;
}
