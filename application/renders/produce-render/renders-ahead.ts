import type { RenderAheadOutcome } from '../../ports/metrics.js';

/**
 * Renders begun before their workflow asks for them. A synchronous render's workflow starts (a
 * Temporal round trip) and charges (an append) before it renders, and meanwhile the browser sits
 * idle and the caller waits. The process that runs the workflow's first task (eager start hands it
 * to this process's own worker) can begin the render as soon as the request is recorded, and the
 * workflow's produce step then takes it instead of rendering again.
 *
 * Nothing durable happens ahead: only the workflow stores the file, charges and records, so a crash,
 * a refused charge or a workflow that ran elsewhere leaves nothing but a render thrown away, which
 * is dropped when its outcome is recorded or after `keepMs`. At most `capacity` are kept at once;
 * past that a request simply renders when its workflow asks, as it would without this.
 */

export interface RendersAhead<T> {
  begin(requestId: string, render: () => Promise<T>): void;
  /** The render begun for `requestId`, handed over once: a retry of the step renders afresh. */
  take(requestId: string): Promise<T> | undefined;
  /** Forgets the render begun for a request that ended without taking it. */
  drop(requestId: string): void;
}

export const createRendersAhead = <T>({
  capacity,
  keepMs,
  ended,
}: {
  readonly capacity: number;
  readonly keepMs: number;
  /** Told how each render begun ahead ended: taken by its workflow, or thrown away. */
  readonly ended: (outcome: RenderAheadOutcome) => void;
}): RendersAhead<T> => {
  const begun = new Map<string, { readonly result: Promise<T>; readonly expiry: NodeJS.Timeout }>();

  const remove = (requestId: string, outcome: RenderAheadOutcome) => {
    const entry = begun.get(requestId);
    if (!entry) return undefined;
    begun.delete(requestId);
    clearTimeout(entry.expiry);
    ended(outcome);
    return entry.result;
  };

  return {
    begin(requestId, render) {
      if (begun.size >= capacity || begun.has(requestId)) return;
      const result = render();
      // Whoever takes it hears of a failure; one nobody takes must not become an unhandled rejection.
      result.catch(() => {});
      const expiry = setTimeout(() => remove(requestId, 'unused'), keepMs);
      expiry.unref();
      begun.set(requestId, { result, expiry });
    },
    take: (requestId) => remove(requestId, 'taken'),
    drop(requestId) {
      remove(requestId, 'unused');
    },
  };
};
