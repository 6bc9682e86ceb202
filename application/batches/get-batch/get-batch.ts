import { batchDecider } from '../../../domain/batches/batch-decider.js';
import { batchStream } from '../../../domain/batches/batch-events.js';
import { notFound } from '../../../domain/shared/errors.js';
import type { EventStore } from '../../ports/event-store.js';
import type { BatchReadModel, BatchRowResult, BatchView } from '../../ports/read-models.js';
import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';
import { aggregateStream } from '../../shared/stream-reads.js';
import { LISTED_FAILURES, type BatchDto } from '../batch-dto.js';
import { rowRequestId } from '../batch-rows.js';
import { toPage } from '../../results/result-dto.js';

export interface GetBatchDeps {
  readonly batches: BatchReadModel;
  readonly eventStore: EventStore;
  /** Where clients reach the service: the batch's ZIP and merged PDF are under it. */
  readonly publicBaseUrl: string;
}

/** Rows whose results are looked up in one query. */
const LOOKUP_ROWS = 500;

/** Every row's result so far, by row number. */
export const rowResultsOfBatch = async (batches: Pick<BatchReadModel, 'rowResults'>, batch: BatchView): Promise<Map<number, BatchRowResult>> => {
  const byRow = new Map<number, BatchRowResult>();
  for (let first = 1; first <= batch.total; first += LOOKUP_ROWS) {
    const rows = Array.from({ length: Math.min(LOOKUP_ROWS, batch.total - first + 1) }, (_, index) => first + index);
    const found = await batches.rowResults(batch.orgId, rows.map((row) => rowRequestId(batch.id, row)));
    for (const row of rows) {
      const result = found.get(rowRequestId(batch.id, row));
      if (result) byRow.set(row, result);
    }
  }
  return byRow;
};

const statusOf = (batch: BatchView, started: boolean): BatchDto['status'] => {
  if (batch.cancelledAt) return 'cancelled';
  if (batch.status === 'ended') return 'done';
  return started ? 'running' : 'pending';
};

/** The batch with its rows' progress, as it stands now; another organization's batch does not exist for the caller. */
export const getBatch = async (deps: GetBatchDeps, context: RequestContext, batchId: string): Promise<BatchDto> => {
  requireScope(context, 'render');
  const batch = await deps.batches.get(context.caller.orgId, batchId);
  if (!batch) throw notFound('Batch');
  const results = await rowResultsOfBatch(deps.batches, batch);
  const { state } = await aggregateStream(deps.eventStore, batchStream(batchId), batchDecider);
  const refused = state.status === 'absent' ? new Map<number, string>() : state.refused;

  const finished = [...results.values()].filter((result) => result.status === 'done');
  const failures = [
    ...[...results].filter(([, result]) => result.status === 'failed').map(([row, result]) => ({ row, msg: result.failureReason ?? 'failed' })),
    ...[...refused].map(([row, msg]) => ({ row, msg })),
  ].sort((a, b) => a.row - b.row);
  const startedAt = [...results.values()].reduce<Date | null>((earliest, result) => (earliest === null || result.createdAt < earliest ? result.createdAt : earliest), null);
  const base = deps.publicBaseUrl.replace(/\/+$/, '');
  return {
    identifier: batch.id,
    name: batch.name,
    template: batch.templateId,
    templateVersion: batch.templateVersion,
    outputFormat: batch.outputFormat,
    status: statusOf(batch, results.size + refused.size > 0),
    total: batch.total,
    done: batch.ended?.done ?? finished.length,
    failed: batch.ended?.failed ?? failures.length,
    cached: batch.ended?.cached ?? finished.filter((result) => result.cached).length,
    creditsCharged: batch.ended?.creditsCharged ?? finished.filter((result) => !result.cached).reduce((sum, result) => sum + result.credits, 0),
    createdAt: batch.createdAt.toISOString(),
    startedAt: startedAt?.toISOString() ?? null,
    finishedAt: batch.endedAt?.toISOString() ?? null,
    failures: failures.slice(0, LISTED_FAILURES),
    zipHref: `${base}/api/v2/batches/${encodeURIComponent(batch.id)}/zip`,
    mergedHref: batch.mergedStorageKey ? `${base}/api/v2/batches/${encodeURIComponent(batch.id)}/merged.pdf` : null,
  };
};

export interface BatchListItem {
  readonly identifier: string;
  readonly name: string;
  readonly template: string;
  readonly status: 'pending' | 'running' | 'done' | 'cancelled';
  readonly total: number;
  readonly createdAt: string;
  readonly finishedAt: string | null;
}

/** The caller's batches, newest first; a batch's progress is GET /api/v2/batches/{id}'s. */
export const listBatches = async (deps: Pick<GetBatchDeps, 'batches'>, context: RequestContext, page: { readonly page: number; readonly size: number }) => {
  requireScope(context, 'render');
  const { items, total } = await deps.batches.list(context.caller.orgId, page);
  return toPage(
    items.map(
      (batch): BatchListItem => ({
        identifier: batch.id,
        name: batch.name,
        template: batch.templateId,
        // Whether an unended batch has begun is its own answer's business: listing does not look at its rows.
        status: batch.cancelledAt ? 'cancelled' : batch.status === 'ended' ? 'done' : 'pending',
        total: batch.total,
        createdAt: batch.createdAt.toISOString(),
        finishedAt: batch.endedAt?.toISOString() ?? null,
      }),
    ),
    page.page,
    page.size,
    total,
  );
};
