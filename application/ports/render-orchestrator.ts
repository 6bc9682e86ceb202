/** How a render ended, as the workflow reports it. */
export type RenderOutcome =
  | { readonly status: 'done' }
  | { readonly status: 'failed'; readonly reason: string; readonly code: 'payment_required' | 'render_failed' };

/** Runs the long, failure-prone part of a render (Temporal in production and in the embedded default). */
export interface RenderOrchestrator {
  /** Starts the render workflow for an accepted request; starting the same request twice is a no-op. */
  start(render: { readonly requestId: string; readonly webhook: boolean }): Promise<void>;
  /** The outcome, or 'timeout' when it takes longer than `timeoutMs` (the work goes on). */
  waitForOutcome(requestId: string, timeoutMs: number): Promise<RenderOutcome | 'timeout'>;
}
