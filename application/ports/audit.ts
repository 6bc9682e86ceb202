import type { RecordedEvent } from '../../domain/shared/events.js';

/** An event that does not continue its stream's hash chain: it was edited, removed or moved after it was written. */
export interface ChainBreak {
  readonly streamName: string;
  readonly revision: number;
  readonly position: number;
  readonly problem: string;
}

/** Follows the hash chains of all streams over events fed in log order, as stored. */
export interface ChainChecker {
  check(event: RecordedEvent): ChainBreak | null;
  /** Events seen that were written before hash chains existed. */
  unchained(): number;
}

export interface EventIntegrity {
  chainChecker(): ChainChecker;
  /** An event as stored, brought to its type's current schema version, as every reader sees it. */
  upcast(event: RecordedEvent): RecordedEvent;
}

export interface AccountLedgerRow {
  readonly orgId: string;
  readonly creditsTotal: number;
  readonly creditsUsed: number;
  readonly uploadsUsed: number;
}

export interface ResultPresenceRow {
  readonly requestId: string;
  readonly orgId: string;
  readonly status: string;
  readonly deleted: boolean;
}

/**
 * The read models' ledger at one consistent moment: rows and the log position they reflect come
 * from one snapshot, so a projection working meanwhile cannot make them disagree.
 */
export interface LedgerSnapshot {
  /** Last position the accounts read model (credits, uploads) applied. */
  readonly accountsPosition: number;
  /** Last position the results read model applied. */
  readonly resultsPosition: number;
  accounts(): AsyncIterable<AccountLedgerRow>;
  results(): AsyncIterable<ResultPresenceRow>;
  close(): Promise<void>;
}

export interface LedgerReadModel {
  /** Every organization's rows, or only `orgId`'s. */
  snapshot(orgId?: string): Promise<LedgerSnapshot>;
}
