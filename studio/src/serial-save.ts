export interface SerialSave<T> {
  /** What the service already holds (as loaded), so an unchanged value is not written again. */
  markSaved(value: T): void;
  /** Writes `value` after every earlier write has ended, unless it is what the service already holds. */
  save(value: T): Promise<void>;
}

/**
 * Writes run one after another and are never aborted. A write the page gave up on still reaches
 * the service, and two in flight at once could land in either order, leaving an older version as
 * the stored one; queued, the last value sent is the last one kept.
 */
export const createSerialSave = <T>(write: (value: T) => Promise<void>): SerialSave<T> => {
  let saved: string | null = null;
  let queue: Promise<void> = Promise.resolve();
  return {
    markSaved(value) {
      saved = JSON.stringify(value);
    },
    save(value) {
      const run = queue.then(async () => {
        const text = JSON.stringify(value);
        if (text === saved) return;
        await write(value);
        saved = text;
      });
      // A failed write is reported to its caller; the next one still runs.
      queue = run.catch(() => undefined);
      return run;
    },
  };
};
