import type { StoredFile } from '../../domain/renders/render-events.js';
import type { FailureCode } from '../../domain/shared/errors.js';

/**
 * How a request's work ended, as the workflow reports it; `done`: with the file the worker stored
 * (key, content type, size), so that whoever serves it need not guess where it went; `failed`: with
 * the failure in the service's one taxonomy (FailureCode).
 */
export type RenderOutcome = (
  | { readonly status: 'done'; readonly file: StoredFile }
  | { readonly status: 'failed'; readonly reason: string; readonly code: Exclude<FailureCode, 'unavailable'> }
  | { readonly status: 'failed'; readonly reason: string; readonly code: 'unavailable'; readonly retryAfterSeconds: number }
) & {
  /** Log position of the event that recorded the outcome: a caller waits for the read models to pass it. */
  readonly position?: number | null;
};

/** How a request that produced no file ended, as a caller is told. */
export type FailedOutcome = Extract<RenderOutcome, { status: 'failed' }>;

/** Runs the long, failure-prone part of a render (Temporal in production and in the embedded default). */
export interface RenderOrchestrator {
  /** Starts the render workflow for an accepted request; starting the same request twice is a no-op. */
  start(render: { readonly requestId: string; readonly webhook: boolean }): Promise<void>;
  /** Starts the video render workflow of an accepted mp4 or webm request; idempotent like start. */
  startVideo(video: { readonly requestId: string; readonly webhook: boolean }): Promise<void>;
  /** Starts the capture workflow of an accepted screenshot or PDF request; idempotent like start. */
  startCapture(capture: { readonly requestId: string; readonly webhook: boolean }): Promise<void>;
  /** Delivers the outcome of a request finished on arrival (a cache hit) to its webhookUrl; idempotent like start. */
  startWebhook(delivery: { readonly requestId: string }): Promise<void>;
  /** Starts the workflow that renders a recorded batch's rows; idempotent like start. */
  startBatch(batch: { readonly batchId: string }): Promise<void>;
  /** Starts the render of a batch's accepted row; a row whose workflow ran already is not run again. */
  startBatchRow(row: { readonly requestId: string }): Promise<void>;
  /** Whether the request's workflow runs, has ended, or was never started. */
  workflowState(requestId: string): Promise<'running' | 'closed' | 'absent'>;
  /** The outcome, or 'timeout' when it takes longer than `timeoutMs` (the work goes on). */
  waitForOutcome(requestId: string, timeoutMs: number): Promise<RenderOutcome | 'timeout'>;
}
