/** A batch as GET /api/v2/batches/{id} shows it. */
export interface BatchDto {
  readonly identifier: string;
  readonly name: string;
  readonly template: string;
  readonly templateVersion: number | null;
  readonly outputFormat: string;
  readonly status: 'pending' | 'running' | 'done' | 'cancelled';
  readonly total: number;
  readonly done: number;
  readonly failed: number;
  readonly cached: number;
  readonly creditsCharged: number;
  readonly createdAt: string;
  /** When its first row was accepted; null before. */
  readonly startedAt: string | null;
  /** When its last row ended (or it was cancelled and the rows in flight ended); null before. */
  readonly finishedAt: string | null;
  /** The first rows that failed, by number (from 1), with the reason. */
  readonly failures: readonly { readonly row: number; readonly msg: string }[];
  readonly zipHref: string;
  readonly mergedHref: string | null;
}

/** Failures a batch's answer lists at most. */
export const LISTED_FAILURES = 100;
