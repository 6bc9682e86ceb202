import { isAccountEvent, orgIdOfStream, type AccountEvent } from '../../domain/accounts/account-events.js';
import { evolveCreditBalance, type CreditEvent } from '../../domain/ledger/credit-balance.js';
import { isLedgerEvent, ledgerOfStream } from '../../domain/ledger/ledger-events.js';
import { asRequestedAndCompleted, isRenderEvent, requestIdOfStream, type RenderEvent } from '../../domain/renders/render-events.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import type { AccountLedgerRow, ResultPresenceRow } from '../ports/audit.js';

/**
 * The ledger recomputed from events alone, independently of the projections: credits used and
 * total, upload bytes per organization, and which results exist. It keeps a few numbers per
 * organization and per request, so it fits millions of events.
 *
 * Independent of the projections' code on purpose: it restates the rules of uploads and results
 * (a cache hit stores no bytes, only a request's first outcome counts), so that a bug there shows
 * up as a difference rather than being reproduced here. Credits are the exception: they are folded
 * by the domain's one fold of a credit balance (`evolveCreditBalance`, which decides which period a
 * charge counts in), over charges and refunds wherever the log holds them: in the organization's
 * ledger streams, one per billing period, and in its account stream for logs written before
 * ledgers had streams of their own. What is checked of credits is then that the read model saw
 * every credit event of the organization, in order, and nothing else.
 */

interface AccountTotals {
  creditsTotal: number;
  creditsUsed: number;
  nextRenewalAt: string;
  uploadsUsed: number;
}

interface ResultPresence {
  readonly orgId: string;
  status: string;
  deleted: boolean;
}

export interface LedgerLimits {
  /** Events after this position are not reflected by the accounts read model yet. */
  readonly accounts: number;
  readonly results: number;
}

export const createLedger = (orgId?: string) => {
  const accounts = new Map<string, AccountTotals>();
  const results = new Map<string, ResultPresence>();
  /** Bytes each render stored (not a cache hit), until it is deleted. */
  const stored = new Map<string, { orgId: string; bytes: number }>();

  /** A charge, refund or renewal of `owner`'s; `ledgerEndsAt` is the period of the ledger stream it came from, null for the account's stream. */
  const applyCredit = (event: RecordedEvent<CreditEvent>, owner: string, ledgerEndsAt: string | null) => {
    const account = accounts.get(owner);
    if (!account) return;
    const { creditsTotal, creditsUsed, nextRenewalAt } = evolveCreditBalance(account, event, ledgerEndsAt);
    Object.assign(account, { creditsTotal, creditsUsed, nextRenewalAt });
  };

  const applyAccount = (event: RecordedEvent<AccountEvent>, owner: string) => {
    if (event.type === 'AccountOpened') {
      const { plan } = event.data;
      accounts.set(owner, { creditsTotal: plan.credits, creditsUsed: 0, nextRenewalAt: plan.nextRenewalAt, uploadsUsed: 0 });
      return;
    }
    // Logs written before ledgers had streams of their own hold credits in the account's stream.
    if (event.type === 'CreditsCharged' || event.type === 'CreditsRefunded' || event.type === 'CreditsRenewed') {
      applyCredit(event, owner, null);
      return;
    }
    const account = accounts.get(owner);
    if (!account) return;
    // Uploaded fonts and images take upload storage until deleted; a deletion names the bytes it gives back.
    if (event.type === 'FontUploaded' || event.type === 'UploadStored') account.uploadsUsed += event.data.bytes;
    else if (event.type === 'FontDeleted' || event.type === 'UploadDeleted') account.uploadsUsed -= event.data.bytes;
  };

  /** Uploads: a stored file counts for its request's organization until the request is deleted. */
  const applyUploads = (event: RecordedEvent<RenderEvent>, requestId: string) => {
    if (event.type === 'RenderCompleted' && !event.data.cached) {
      const owner = event.metadata.orgId;
      const account = accounts.get(owner);
      if (!account || stored.has(requestId)) return;
      stored.set(requestId, { orgId: owner, bytes: event.data.bytes });
      account.uploadsUsed += event.data.bytes;
    } else if (event.type === 'ResultDeleted') {
      const file = stored.get(requestId);
      if (!file) return;
      stored.delete(requestId);
      const account = accounts.get(file.orgId);
      if (account) account.uploadsUsed -= file.bytes;
    }
  };

  const applyResult = (event: RecordedEvent<RenderEvent>, requestId: string) => {
    if (event.type === 'RenderRequested' || event.type === 'CaptureRequested') {
      results.set(requestId, { orgId: event.data.orgId, status: 'pending', deleted: false });
      return;
    }
    // A cache hit's one event is read as the two that logs before it hold, like every other fold.
    if (event.type === 'RenderServedFromCache') {
      for (const half of asRequestedAndCompleted(event)) applyResult(half, requestId);
      return;
    }
    const result = results.get(requestId);
    if (!result) return;
    // Only the first outcome counts, as for the aggregate.
    if (event.type === 'RenderCompleted' && result.status === 'pending') result.status = 'done';
    else if (event.type === 'RenderFailed' && result.status === 'pending') result.status = 'failed';
    else if (event.type === 'ResultDeleted') result.deleted = true;
  };

  return {
    /** Applies one event (upcast to the current schema) where each read model has seen it. */
    apply(event: RecordedEvent, limits: LedgerLimits): void {
      if (orgId !== undefined && event.metadata.orgId !== orgId) return;
      const owner = orgIdOfStream(event.streamName);
      const ledger = ledgerOfStream(event.streamName);
      const requestId = requestIdOfStream(event.streamName);
      if (owner !== null && isAccountEvent(event)) {
        if (event.position <= limits.accounts) applyAccount(event, owner);
      } else if (ledger !== null && isLedgerEvent(event)) {
        // The organization and the period are the stream's: batch rows are charged there like every render.
        if (event.position <= limits.accounts) applyCredit(event, ledger.orgId, ledger.endsAt);
      } else if (requestId !== null && isRenderEvent(event)) {
        if (event.position <= limits.accounts) applyUploads(event, requestId);
        if (event.position <= limits.results) applyResult(event, requestId);
      }
    },
    accounts: (): ReadonlyMap<string, Readonly<AccountTotals>> => accounts,
    results: (): ReadonlyMap<string, Readonly<ResultPresence>> => results,
  };
};

export type Ledger = ReturnType<typeof createLedger>;

export interface LedgerDifference {
  /** "account <orgId>" or "result <requestId>". */
  readonly subject: string;
  readonly field: string;
  /** From the events. */
  readonly expected: unknown;
  /** In the read model. */
  readonly actual: unknown;
}

const ABSENT = 'no row';

/** Account rows against the recomputed ledger; every organization of the ledger must have its row. */
export async function* compareAccounts(ledger: Ledger, rows: AsyncIterable<AccountLedgerRow>): AsyncGenerator<LedgerDifference> {
  const seen = new Set<string>();
  for await (const row of rows) {
    seen.add(row.orgId);
    const subject = `account ${row.orgId}`;
    const expected = ledger.accounts().get(row.orgId);
    if (!expected) {
      yield { subject, field: 'row', expected: ABSENT, actual: 'a row without AccountOpened' };
      continue;
    }
    const balance = (totals: { creditsTotal: number; creditsUsed: number }) => totals.creditsTotal - totals.creditsUsed;
    const fields = [
      ['creditsUsed', expected.creditsUsed, row.creditsUsed],
      ['creditsTotal', expected.creditsTotal, row.creditsTotal],
      ['balance', balance(expected), balance(row)],
      ['uploadsUsed', expected.uploadsUsed, row.uploadsUsed],
    ] as const;
    for (const [field, fromEvents, inReadModel] of fields) {
      if (fromEvents !== inReadModel) yield { subject, field, expected: fromEvents, actual: inReadModel };
    }
  }
  for (const orgId of ledger.accounts().keys()) {
    if (!seen.has(orgId)) yield { subject: `account ${orgId}`, field: 'row', expected: 'a row', actual: ABSENT };
  }
}

/** Result rows against the recomputed ledger: the same results exist, with the same status and deletion. */
export async function* compareResults(ledger: Ledger, rows: AsyncIterable<ResultPresenceRow>): AsyncGenerator<LedgerDifference> {
  const seen = new Set<string>();
  for await (const row of rows) {
    seen.add(row.requestId);
    const subject = `result ${row.requestId}`;
    const expected = ledger.results().get(row.requestId);
    if (!expected) {
      yield { subject, field: 'row', expected: ABSENT, actual: 'a row without a request event' };
      continue;
    }
    if (expected.orgId !== row.orgId) yield { subject, field: 'orgId', expected: expected.orgId, actual: row.orgId };
    if (expected.status !== row.status) yield { subject, field: 'status', expected: expected.status, actual: row.status };
    if (expected.deleted !== row.deleted) yield { subject, field: 'deleted', expected: expected.deleted, actual: row.deleted };
  }
  for (const requestId of ledger.results().keys()) {
    if (!seen.has(requestId)) yield { subject: `result ${requestId}`, field: 'row', expected: 'a row', actual: ABSENT };
  }
}
