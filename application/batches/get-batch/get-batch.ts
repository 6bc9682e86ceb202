import { batchDecider } from '../../../domain/batches/batch-decider.js';
import { batchStream } from '../../../domain/batches/batch-events.js';
import { notFound } from '../../../domain/shared/errors.js';
import type { EventStore } from '../../ports/event-store.js';
import type { BatchReadModel, BatchView } from '../../ports/read-models.js';
import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';
import { aggregateStream } from '../../shared/stream-reads.js';
import { LISTED_FAILURES, type BatchDto } from '../batch-dto.js';
import { countRows, rowResults } from '../row-results.js';
import { toPage } from '../../results/result-dto.js';

export interface GetBatchDeps {
  readonly batches: BatchReadModel;
  readonly eventStore: EventStore;
  /** Where clients reach the service: the batch's ZIP and merged PDF are under it. */
  readonly publicBaseUrl: string;
}

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
  const results = await rowResults(deps.batches, batch.orgId, batch.id, batch.total);
  const { state } = await aggregateStream(deps.eventStore, batchStream(batchId), batchDecider);
  const refused = state.status === 'absent' ? new Map<number, string>() : state.refused;

  const counts = batch.ended ?? countRows(results, refused.size);
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
    done: counts.done,
    failed: counts.failed,
    cached: counts.cached,
    creditsCharged: counts.creditsCharged,
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
