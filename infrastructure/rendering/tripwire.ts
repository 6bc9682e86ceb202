/**
 * A failure that ends whatever work is in flight when it happens (a browser or a page that crashes).
 * Not a promise to race work against: each Promise.race leaves a reaction on a promise that never
 * settles while the browser lives, and that reaction holds the race's result, so a browser kept
 * every file its renders made until it was restarted (up to 1,000 renders, hundreds of MB). A guard
 * takes its waiter off the wire as soon as its work settles.
 */
export interface Tripwire {
  /** Fails every guarded work in flight, and every later one, with error (the first trip's). */
  trip(error: Error): void;
  /** Settles like work, or rejects once the wire trips first. */
  guard<T>(work: Promise<T>): Promise<T>;
}

export const createTripwire = (): Tripwire => {
  const waiting = new Set<(error: Error) => void>();
  let tripped: Error | undefined;
  return {
    trip(error) {
      tripped ??= error;
      for (const reject of waiting) reject(tripped);
      waiting.clear();
    },
    guard: <T>(work: Promise<T>) =>
      new Promise<T>((resolve, reject) => {
        if (tripped) {
          // The work goes on unobserved: its failure must not surface as an unhandled rejection.
          work.catch(() => {});
          reject(tripped);
          return;
        }
        waiting.add(reject);
        void work.then(resolve, reject).finally(() => waiting.delete(reject));
      }),
  };
};
