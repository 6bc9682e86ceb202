import type { Readable } from 'node:stream';
import { notFound } from '../../../domain/shared/errors.js';
import type { FileStorage } from '../../ports/file-storage.js';
import type { BatchReadModel } from '../../ports/read-models.js';
import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';

/** The one PDF of every row of a merged batch, once the batch ended; not found before, or for a batch that was not merged. */
export const mergedPdf = async (deps: { readonly batches: BatchReadModel; readonly storage: FileStorage }, context: RequestContext, batchId: string): Promise<{ fileName: string; stream: Readable }> => {
  requireScope(context, 'render');
  const batch = await deps.batches.get(context.caller.orgId, batchId);
  const opened = batch?.mergedStorageKey ? await deps.storage.open(batch.mergedStorageKey) : null;
  if (!batch || !opened || !('stream' in opened)) throw notFound('Merged PDF of the batch');
  return { fileName: `${batch.name.replace(/[^\w.-]+/g, '_')}.pdf`, stream: opened.stream };
};
