import type { RenderOutcome } from './render-orchestrator.js';

/**
 * Word, within one process, that a request's outcome is recorded: its file, or why there is none.
 * A caller waiting in the process that recorded it answers then, instead of after the workflow's end
 * has gone through Temporal (the task completed, its history written, the result long poll woken):
 * the recorded outcome is the request's, and a replay of the workflow can only record the same again.
 */
export interface RecordedOutcomes {
  /** The request's outcome is in the log at the outcome's `position`. */
  recorded(requestId: string, outcome: RenderOutcome): void;
}
