import { notFound } from '../../domain/shared/errors.js';
import { isTemplateEvent, templateStream } from '../../domain/templates/template-events.js';
import type { EventIntegrity, LedgerReadModel } from '../ports/audit.js';
import type { EventStore } from '../ports/event-store.js';
import type { RequestContext } from '../shared/request-context.js';
import { createInFlightLimit, type InFlightLimits } from '../shared/in-flight-limit.js';
import { requireScope } from '../shared/scopes.js';
import { readEvents } from '../shared/stream-reads.js';
import { createRequestScan, createRowBuilder, type HistoryFilter, type HistoryRow, type RequestSpan } from './history.js';
import { compareAccounts, compareResults, createLedger, type LedgerDifference } from './ledger.js';
import { scanLog } from './log-scan.js';
import { storedDataOf } from '../renders/hit-data.js';
import { templateAsOf, type TemplateSnapshot } from './template-history.js';
import { uploadHistory, type UploadHistoryRow } from './upload-history.js';
import { accountStream, isAccountEvent } from '../../domain/accounts/account-events.js';
import { batchStream, isBatchEvent } from '../../domain/batches/batch-events.js';
import { batchHistory, type BatchHistory } from './batch-history.js';

export interface AuditServiceDeps {
  readonly eventStore: EventStore;
  readonly integrity: EventIntegrity;
  readonly ledger: LedgerReadModel;
  readonly historyPagesInFlight?: InFlightLimits;
}

export interface VerifyOptions {
  /** Check one organization's streams and rows only. */
  readonly orgId?: string;
  /** Called with each difference as it is found. */
  readonly onDifference?: (difference: LedgerDifference) => void;
  readonly progress?: ReplayProgress;
}

export interface VerifyReport {
  /** Last position of the log checked. */
  readonly head: number | null;
  /** Positions the compared read models reflected. */
  readonly readModelPositions: { readonly accounts: number; readonly results: number };
  readonly eventsChecked: number;
  /** Events from before hash chains existed: not checkable, not counted as breaks. */
  readonly unchainedEvents: number;
  readonly chainBreaks: number;
  readonly differences: number;
  readonly ok: boolean;
}

/** How far a replay got, in log positions over both passes: for progress bars. */
export type ReplayProgress = (done: number, total: number) => void;

export interface HistoryQuery {
  readonly from?: Date;
  readonly to?: Date;
  readonly templateId?: string;
  /** The rows of this batch only. */
  readonly batchId?: string;
  /** Zero-based. */
  readonly page: number;
  readonly size: number;
}

export interface HistoryPage {
  readonly items: HistoryRow[];
  readonly page: number;
  readonly size: number;
  /** Requests in the whole history that match. */
  readonly total: number;
}

export type AuditService = ReturnType<typeof createAuditService>;

/**
 * A history page replays the organization's whole log twice: a handful at once keeps the database
 * and the event loop for everyone else; exports (replayHistory) run from the CLI, not through here.
 */
const HISTORY_PAGES_IN_FLIGHT: InFlightLimits = { total: 4, perKey: 2, retryAfterSeconds: 2 };

export const createAuditService = ({ eventStore, integrity, ledger: ledgerReadModel, historyPagesInFlight = HISTORY_PAGES_IN_FLIGHT }: AuditServiceDeps) => {
  const limitHistoryPages = createInFlightLimit('history pages', historyPagesInFlight);
  /** Pass one over the log up to `head`: which requests match, and what stretch of the log each one's history spans. */
  const findRequests = async (filter: HistoryFilter, head: number, progress?: ReplayProgress) => {
    const scan = createRequestScan(filter);
    for await (const event of scanLog(eventStore, { after: null, upTo: head, orgId: filter.orgId, onPage: (position) => progress?.(position, 2 * head) })) {
      scan.apply(event);
    }
    return scan.spans();
  };

  /** A row of a cache hit that holds its data by reference shows the data its request carried. */
  const withStoredData = async (row: HistoryRow): Promise<HistoryRow> => {
    if (row.dataFrom === null) return row;
    const { used, sent } = await storedDataOf(eventStore, row.dataFrom);
    return { ...row, data: used, request: { ...row.request, data: sent } };
  };

  /** Pass two: the rows of `spans`, each as soon as its history is complete. */
  async function* buildRows(orgId: string, spans: ReadonlyMap<string, RequestSpan>, head: number, progress?: ReplayProgress): AsyncGenerator<HistoryRow> {
    let first = Number.POSITIVE_INFINITY;
    let last = Number.NEGATIVE_INFINITY;
    for (const span of spans.values()) {
      first = Math.min(first, span.first);
      last = Math.max(last, span.last);
    }
    if (spans.size === 0) return;
    const builder = createRowBuilder(orgId, spans);
    for await (const event of scanLog(eventStore, { after: first - 1, upTo: last, orgId, onPage: (position) => progress?.(head + position, 2 * head) })) {
      const row = builder.apply(event);
      if (row) yield await withStoredData(row);
    }
  }

  const templateSnapshot = async (templateId: string, at: Date): Promise<TemplateSnapshot> => {
    const snapshot = templateAsOf(await readEvents(eventStore, templateStream(templateId), isTemplateEvent), at);
    if (!snapshot) throw notFound(`Template ${templateId} at ${at.toISOString()}`);
    return snapshot;
  };

  /**
   * Recomputes the ledger from the log as stored, checking every stream's hash chain on the way
   * (accounts, ledgers, renders, templates, batches alike), and compares it with the read models at
   * the positions they reflect. Credits come from the ledger streams and, in logs written before
   * those, the account streams; a batch's rows are renders of their own, charged and recorded as any.
   */
  const verify = async ({ orgId, onDifference, progress }: VerifyOptions = {}): Promise<VerifyReport> => {
    const snapshot = await ledgerReadModel.snapshot(orgId);
    try {
      const limits = { accounts: snapshot.accountsPosition, results: snapshot.resultsPosition };
      const head = Math.max((await eventStore.headPosition()) ?? -1, limits.accounts, limits.results);
      const ledger = createLedger(orgId);
      const chains = integrity.chainChecker();
      let eventsChecked = 0;
      let chainBreaks = 0;
      let differences = 0;
      const report = (difference: LedgerDifference) => {
        differences += 1;
        onDifference?.(difference);
      };
      if (head >= 0) {
        for await (const stored of scanLog(eventStore, { after: null, upTo: head, asStored: true, onPage: (position) => progress?.(position, head) })) {
          if (orgId !== undefined && stored.metadata.orgId !== orgId) continue;
          eventsChecked += 1;
          const broken = chains.check(stored);
          if (broken) {
            chainBreaks += 1;
            report({ subject: `stream ${broken.streamName}`, field: `revision ${broken.revision} (position ${broken.position})`, expected: 'an unbroken hash chain', actual: broken.problem });
          }
          ledger.apply(integrity.upcast(stored), limits);
        }
      }
      for await (const difference of compareAccounts(ledger, snapshot.accounts())) report(difference);
      for await (const difference of compareResults(ledger, snapshot.results())) report(difference);
      return {
        head: head >= 0 ? head : null,
        readModelPositions: limits,
        eventsChecked,
        unchainedEvents: chains.unchained(),
        chainBreaks,
        differences,
        ok: differences === 0,
      };
    } finally {
      await snapshot.close();
    }
  };

  /** A batch's history from its stream: asked, rows refused, cancelled, ended with its counts. */
  const batch = async (batchId: string): Promise<BatchHistory> => {
    const history = batchHistory(await readEvents(eventStore, batchStream(batchId), isBatchEvent));
    if (!history) throw notFound(`Batch ${batchId}`);
    return history;
  };

  return {
    verify,

    /**
     * The organization's whole render history from the event log, row by row, for exports of any
     * size. Rows come out as each history completes, i.e. in the order of their last event.
     */
    async *replayHistory(filter: HistoryFilter, progress?: ReplayProgress): AsyncGenerator<HistoryRow> {
      const head = await eventStore.headPosition();
      if (head === null) return;
      const spans = await findRequests(filter, head, progress);
      yield* buildRows(filter.orgId, spans, head, progress);
      progress?.(2 * head, 2 * head);
    },

    /** One page of the caller's history, in request order. Each page replays the organization's log: meant for audits, not dashboards. */
    async historyPage(context: RequestContext, query: HistoryQuery): Promise<HistoryPage> {
      requireScope(context, 'audit');
      const filter: HistoryFilter = { orgId: context.caller.orgId, from: query.from, to: query.to, templateId: query.templateId, batchId: query.batchId };
      return limitHistoryPages(filter.orgId, async () => {
        const head = await eventStore.headPosition();
        if (head === null) return { items: [], page: query.page, size: query.size, total: 0 };
        const spans = await findRequests(filter, head);
        const start = query.page * query.size;
        const wanted = new Map([...spans].slice(start, start + query.size));
        const items: HistoryRow[] = [];
        for await (const row of buildRows(filter.orgId, wanted, head)) items.push(row);
        items.sort((a, b) => a.position - b.position);
        return { items, page: query.page, size: query.size, total: spans.size };
      });
    },

    /** Every font and image the organization uploaded, with its deletion, replayed from its account stream. */
    uploads: async (orgId: string): Promise<UploadHistoryRow[]> => uploadHistory(await readEvents(eventStore, accountStream(orgId), isAccountEvent)),

    /**
     * One page of the caller's uploads history (audit scope), and how many uploads there are. It
     * replays the organization's account stream, so it shares the history pages' bound on replays at once.
     */
    async uploadHistory(context: RequestContext, page: { readonly page: number; readonly size: number }): Promise<{ items: UploadHistoryRow[]; total: number }> {
      requireScope(context, 'audit');
      const orgId = context.caller.orgId;
      return limitHistoryPages(orgId, async () => {
        const rows = uploadHistory(await readEvents(eventStore, accountStream(orgId), isAccountEvent));
        return { items: rows.slice(page.page * page.size, (page.page + 1) * page.size), total: rows.length };
      });
    },

    /**
     * A batch's history replayed from its stream, for anyone administering the service. Its rows are
     * renders of their own: `replayHistory` with `batchId` gives them, each with its charge.
     */
    batch,

    /** The caller's batch's history (audit scope); another organization's batch does not exist for it. */
    async batchHistory(context: RequestContext, batchId: string): Promise<BatchHistory> {
      requireScope(context, 'audit');
      const history = await batch(batchId);
      if (history.orgId !== context.caller.orgId) throw notFound(`Batch ${batchId}`);
      return history;
    },

    /** A template exactly as it was at `at`, for anyone administering the service. */
    templateSnapshot,

    /** The caller's template as it was at `at`; another organization's template does not exist for it. */
    async templateAt(context: RequestContext, templateId: string, at: Date): Promise<TemplateSnapshot> {
      requireScope(context, 'audit');
      const snapshot = await templateSnapshot(templateId, at);
      if (snapshot.orgId !== context.caller.orgId) throw notFound(`Template ${templateId} at ${at.toISOString()}`);
      return snapshot;
    },
  };
};
