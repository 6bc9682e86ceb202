import { notFound } from '../../../domain/shared/errors.js';
import { handleAssetCommand, type AssetDeps } from '../../assets/asset-command.js';
import type { AssetReadModel } from '../../ports/read-models.js';
import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';

export interface DeleteUploadDeps extends AssetDeps {
  readonly assets: Pick<AssetReadModel, 'getUpload'>;
}

/** Records the deletion (which gives its bytes back), then removes the file; new renders no longer find it. */
export const deleteUpload = async (deps: DeleteUploadDeps, context: RequestContext, uploadId: string): Promise<void> => {
  requireScope(context, 'templates');
  const upload = await deps.assets.getUpload(context.caller.orgId, uploadId);
  if (!upload) throw notFound('Upload');
  await handleAssetCommand(deps, context, { type: 'DeleteUpload', data: { orgId: context.caller.orgId, uploadId, now: deps.clock.now().toISOString() } });
  await deps.storage.delete(upload.storageKey);
};
