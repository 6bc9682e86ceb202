import { batchDecider } from '../../../domain/batches/batch-decider.js';
import { batchStream, type BatchCounts, type BatchRequested } from '../../../domain/batches/batch-events.js';
import type { Batch } from '../../../domain/batches/batch.js';
import { renderStream } from '../../../domain/renders/render-events.js';
import { DomainError, notFound } from '../../../domain/shared/errors.js';
import type { PdfMerger } from '../../ports/batch-files.js';
import type { BatchReadModel, BatchRowResult } from '../../ports/read-models.js';
import { systemContextFor } from '../../shared/request-context.js';
import { onBatchStream } from '../../shared/stream-commands.js';
import { aggregateStream } from '../../shared/stream-reads.js';
import { answerFromCache, type AnswerFromCacheDeps } from '../../renders/request-render/answer-from-cache.js';
import { prepareRenderRequest, type PrepareRenderDeps } from '../../renders/request-render/prepare-render-request.js';
import { recordRenderRequest } from '../../renders/request-render/record-render-request.js';
import type { FileStorage } from '../../ports/file-storage.js';
import type { RenderOrchestrator } from '../../ports/render-orchestrator.js';
import { loadRows, rowRequestId, type BatchRow } from '../batch-rows.js';
import { countRows, rowResults } from '../row-results.js';

export interface BatchStepsDeps extends PrepareRenderDeps, AnswerFromCacheDeps {
  readonly storage: FileStorage;
  readonly batches: Pick<BatchReadModel, 'rowResults'>;
  readonly pdfMerger: PdfMerger;
  readonly orchestrator: Pick<RenderOrchestrator, 'startBatchRow'>;
}

/** Batches whose rows and organization a worker keeps in memory: each step of a batch reads them again. */
const BATCHES_KEPT = 8;

/** Remembers `value` under `key`, forgetting the entry remembered first once more than BATCHES_KEPT are. */
const remember = <Value>(kept: Map<string, Value>, key: string, value: Value): Value => {
  kept.set(key, value);
  if (kept.size > BATCHES_KEPT) kept.delete(kept.keys().next().value as string);
  return value;
};

type RequestedBatch = Exclude<Batch, { status: 'absent' }>;

const loadBatch = async (deps: BatchStepsDeps, batchId: string): Promise<RequestedBatch> => {
  const { state } = await aggregateStream(deps.eventStore, batchStream(batchId), batchDecider);
  if (state.status === 'absent') throw notFound('Batch');
  return state;
};

/** The results of rows 1 to `accepted` as the read models hold them, by row number. */
const rowResultsOf = (deps: BatchStepsDeps, request: BatchRequested['data'], accepted: number) => rowResults(deps.batches, request.orgId, request.batchId, accepted);

export interface AcceptedRows {
  /** The batch was cancelled: no row was accepted, and none is to be. */
  readonly cancelled: boolean;
  /**
   * Requests to render (a request accepted before is named again): their workflows were started
   * by the step, or, asked with `start: false` by a batch from before steps started them, are
   * started by the batch as its children. Starting either way is idempotent.
   */
  readonly toRender: readonly string[];
}

/**
 * The steps of a batch's workflow. Each is idempotent: a row's request id is derived from the batch
 * and its number, so a retried step, a replayed workflow or a restarted batch finds the request it
 * recorded before and neither records nor charges it again.
 */
export const createBatchSteps = (deps: BatchStepsDeps) => {
  /** The rows of recent batches by their digest: a file once stored never changes, and was checked against it when read. */
  const rowFiles = new Map<string, Promise<BatchRow[]>>();
  /** The organization of recent batches, asked on every look at their rows: a batch's organization never changes. */
  const batchOrgs = new Map<string, string>();
  const rowsOf = (stored: BatchRequested['data']['rows']): Promise<BatchRow[]> => {
    const known = rowFiles.get(stored.sha256);
    if (known) return known;
    const loading = loadRows(deps.storage, stored);
    loading.catch(() => rowFiles.delete(stored.sha256));
    return remember(rowFiles, stored.sha256, loading);
  };

  /** Makes a row a render request of its own, answered from the render cache when it can be. */
  const acceptRow = async (request: BatchRequested['data'], number: number, row: BatchRow): Promise<'render' | 'done'> => {
    const requestId = rowRequestId(request.batchId, number);
    const recorded = await deps.eventStore.readStream(renderStream(requestId));
    if (recorded.length > 0) return recorded.some((event) => event.type === 'RenderServedFromCache') ? 'done' : 'render';
    const context = systemContextFor(request.orgId, request.batchId);
    try {
      const { requested } = await prepareRenderRequest(
        deps,
        context,
        {
          template: request.templateId,
          ...(request.templateVersion === null ? {} : { templateVersion: request.templateVersion }),
          data: { ...row.data },
          ...(row.fileName === undefined ? {} : { fileName: row.fileName }),
          ...(row.metadata === undefined ? {} : { metadata: { ...row.metadata } }),
          outputFormat: request.outputFormat,
          cache: request.cache,
          batchName: request.name,
        },
        requestId,
      );
      if (await answerFromCache(deps, context, requested, 'recorded')) return 'done';
      await recordRenderRequest(deps, requested, context);
      return 'render';
    } catch (error) {
      // Checked when the batch was accepted; what fails now changed since (the template was deleted or edited).
      if (!(error instanceof DomainError) || (error.code !== 'validation' && error.code !== 'not_found')) throw error;
      const reason = [error.message, ...error.details].join(': ');
      await onBatchStream(deps, request.batchId, { type: 'RefuseBatchRow', data: { batchId: request.batchId, row: number, requestId, reason, now: deps.clock.now().toISOString() } }, context);
      return 'done';
    }
  };

  return {
    async total(batchId: string): Promise<number> {
      return (await loadBatch(deps, batchId)).request.total;
    },

    /**
     * Rows `from` to `from + count - 1` (numbered from 1) made requests, and their renders started
     * when `start` is set, unless the batch was cancelled.
     */
    async acceptRows(batchId: string, from: number, count: number, start: boolean): Promise<AcceptedRows> {
      const batch = await loadBatch(deps, batchId);
      if (batch.status !== 'pending') return { cancelled: true, toRender: [] };
      const rows = await rowsOf(batch.request.rows);
      const toRender: string[] = [];
      for (let number = from; number < from + count && number <= rows.length; number++) {
        const row = rows[number - 1];
        if (row && (await acceptRow(batch.request, number, row)) === 'render') toRender.push(rowRequestId(batchId, number));
      }
      if (start) await Promise.all(toRender.map((requestId) => deps.orchestrator.startBatchRow({ requestId })));
      return { cancelled: false, toRender };
    },

    /** Of these rows' requests, those still rendering: pending, or not yet in the read models. */
    async rowsRendering(batchId: string, requestIds: readonly string[]): Promise<string[]> {
      const orgId = batchOrgs.get(batchId) ?? remember(batchOrgs, batchId, (await loadBatch(deps, batchId)).request.orgId);
      const results = await deps.batches.rowResults(orgId, requestIds);
      return requestIds.filter((requestId) => (results.get(requestId)?.status ?? 'pending') === 'pending');
    },

    /**
     * Rows of the first `accepted` whose render has not ended, or whose result the read models do
     * not hold yet: the batch counts its rows only once none is.
     */
    async rowsPending(batchId: string, accepted: number): Promise<number> {
      const batch = await loadBatch(deps, batchId);
      const results = await rowResultsOf(deps, batch.request, accepted);
      const ended = [...results.values()].filter((result) => result.status !== 'pending').length;
      return accepted - ended - batch.refused.size;
    },

    /**
     * Counts the first `accepted` rows (the others were never started: the batch was cancelled),
     * merges the PDFs when asked to, and records the end; the counts it recorded.
     */
    async end(batchId: string, accepted: number): Promise<BatchCounts> {
      const batch = await loadBatch(deps, batchId);
      if (batch.ended) return batch.ended;
      const { request } = batch;
      const results = await rowResultsOf(deps, request, accepted);
      const counts: BatchCounts = { ...countRows(results, batch.refused.size), skipped: request.total - accepted };
      const mergedStorageKey = request.merge ? await mergeRows(deps, request, await rowsOf(request.rows), results) : null;
      const context = systemContextFor(request.orgId, batchId);
      await onBatchStream(deps, batchId, { type: 'EndBatch', data: { batchId, ...counts, mergedStorageKey, now: deps.clock.now().toISOString() } }, context);
      return counts;
    },
  };
};

export type BatchSteps = ReturnType<typeof createBatchSteps>;

export const mergedStorageKeyOf = (orgId: string, batchId: string) => `${orgId}/batches/${batchId}/merged.pdf`;

/** One PDF of every row that made a file, in row order, each row an outline entry; null when none did. */
const mergeRows = async (deps: BatchStepsDeps, request: BatchRequested['data'], rows: readonly BatchRow[], results: ReadonlyMap<number, BatchRowResult>): Promise<string | null> => {
  const parts = async function* () {
    for (let number = 1; number <= request.total; number++) {
      const result = results.get(number);
      const content = result?.status === 'done' && result.storageKey ? await deps.storage.get(result.storageKey) : null;
      if (content) yield { title: rows[number - 1]?.fileName ?? `Row ${number}`, content };
    }
  };
  if (![...results.values()].some((result) => result.status === 'done')) return null;
  const merged = await deps.pdfMerger.merge(parts());
  const key = mergedStorageKeyOf(request.orgId, request.batchId);
  await deps.storage.put(key, merged, 'application/pdf');
  return key;
};
