import type { RecordedOutcomes } from '../../application/ports/recorded-outcomes.js';
import type { RenderOutcome } from '../../application/ports/render-orchestrator.js';

export interface LocalOutcomes extends RecordedOutcomes {
  /** The outcome of `requestId` if this process records it while listening; `stop` forgets the listener. */
  listen(requestId: string): { readonly outcome: Promise<RenderOutcome>; stop(): void };
}

/**
 * Outcomes recorded by this process's worker, handed to the callers waiting in it. Nothing is
 * kept for a request nobody listens for (another process's caller hears through Temporal), and a
 * listener is dropped as soon as its caller stops waiting, so nothing grows with the renders made.
 */
export const createLocalOutcomes = (): LocalOutcomes => {
  const listeners = new Map<string, (outcome: RenderOutcome) => void>();
  return {
    recorded(requestId, outcome) {
      listeners.get(requestId)?.(outcome);
    },
    listen(requestId) {
      let resolve!: (outcome: RenderOutcome) => void;
      const outcome = new Promise<RenderOutcome>((settle) => {
        resolve = settle;
      });
      listeners.set(requestId, resolve);
      return {
        outcome,
        stop: () => {
          if (listeners.get(requestId) === resolve) listeners.delete(requestId);
        },
      };
    },
  };
};
