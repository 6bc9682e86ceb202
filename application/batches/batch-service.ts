import type { ProjectionProgress } from '../ports/read-models.js';
import type { RequestContext } from '../shared/request-context.js';
import { batchArchive, type BatchArchiveDeps } from './download-batch/batch-archive.js';
import { mergedPdf } from './download-batch/merged-pdf.js';
import { cancelBatch } from './cancel-batch/cancel-batch.js';
import { getBatch, listBatches, type GetBatchDeps } from './get-batch/get-batch.js';
import { submitBatch, type SubmitBatchDeps, type SubmitBatchInput } from './submit-batch/submit-batch.js';

export type BatchServiceDeps = SubmitBatchDeps & GetBatchDeps & BatchArchiveDeps & { readonly progress: ProjectionProgress };

export type BatchService = ReturnType<typeof createBatchService>;

/** Batches of renders from rows of data, as the edges call them. */
export const createBatchService = (deps: BatchServiceDeps) => ({
  submit: (context: RequestContext, input: SubmitBatchInput) => submitBatch(deps, context, input),
  get: (context: RequestContext, batchId: string) => getBatch(deps, context, batchId),
  list: (context: RequestContext, page: { readonly page: number; readonly size: number }) => listBatches(deps, context, page),
  cancel: (context: RequestContext, batchId: string) => cancelBatch(deps, context, batchId),
  archive: (context: RequestContext, batchId: string) => batchArchive(deps, context, batchId),
  merged: (context: RequestContext, batchId: string) => mergedPdf(deps, context, batchId),
});
