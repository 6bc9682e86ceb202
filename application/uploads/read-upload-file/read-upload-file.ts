import { notFound } from '../../../domain/shared/errors.js';
import type { ByteRangeRequest, FileStorage, OpenedFile } from '../../ports/file-storage.js';
import type { AssetReadModel } from '../../ports/read-models.js';
import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';

export interface ReadUploadFileDeps {
  readonly assets: Pick<AssetReadModel, 'getUpload'>;
  readonly storage: Pick<FileStorage, 'open'>;
}

/** An upload's bytes, for its own organization's keys only (another organization's is not found). */
export const readUploadFile = async (
  deps: ReadUploadFileDeps,
  context: RequestContext,
  uploadId: string,
  range?: ByteRangeRequest,
): Promise<{ file: OpenedFile; contentType: string }> => {
  requireScope(context, 'templates');
  const upload = await deps.assets.getUpload(context.caller.orgId, uploadId);
  const file = upload ? await deps.storage.open(upload.storageKey, range) : null;
  if (!upload || !file) throw notFound('Upload');
  return { file, contentType: upload.contentType };
};
