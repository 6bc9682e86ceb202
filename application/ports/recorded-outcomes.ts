import type { StoredFile } from '../../domain/renders/render-events.js';

/**
 * Word, within one process, that a request's file is recorded. A caller waiting in the process that
 * made the file answers then, instead of after the workflow's end has gone through Temporal (the
 * task completed, its history written, the result long poll woken): the recorded completion is the
 * outcome, and a replay of the workflow can only record the same one again.
 */
export interface RecordedOutcomes {
  /** The request's completion is in the log at `position`, naming `file`. */
  recorded(requestId: string, outcome: { readonly file: StoredFile; readonly position: number | null }): void;
}
