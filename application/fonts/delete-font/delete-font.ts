import { handleAssetCommand, type AssetDeps } from '../../assets/asset-command.js';
import type { AssetReadModel } from '../../ports/read-models.js';
import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';
import { notFound } from '../../../domain/shared/errors.js';

export interface DeleteFontDeps extends AssetDeps {
  readonly assets: Pick<AssetReadModel, 'getFont'>;
}

/**
 * Records the deletion (which gives its bytes back), then removes the file: renders from then on
 * no longer find the font, and a file left by a crash in between is never served again.
 */
export const deleteFont = async (deps: DeleteFontDeps, context: RequestContext, fontId: string): Promise<void> => {
  requireScope(context, 'templates');
  const font = await deps.assets.getFont(context.caller.orgId, fontId);
  if (!font) throw notFound('Font');
  await handleAssetCommand(deps, context, { type: 'DeleteFont', data: { orgId: context.caller.orgId, fontId, now: deps.clock.now().toISOString() } });
  await deps.storage.delete(font.storageKey);
};
