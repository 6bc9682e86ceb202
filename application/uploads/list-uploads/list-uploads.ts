import type { AssetReadModel } from '../../ports/read-models.js';
import { toPage, type PageDto } from '../../results/result-dto.js';
import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';
import { toUploadDto, type UploadDto } from '../upload-dto.js';

export interface ListUploadsDeps {
  readonly assets: Pick<AssetReadModel, 'listUploads'>;
  readonly hrefOf: (uploadId: string) => string;
}

/** The organization's images, newest first, in the page wrapper results use. */
export const listUploads = async (deps: ListUploadsDeps, context: RequestContext, paging: { page: number; size: number }): Promise<PageDto<UploadDto>> => {
  requireScope(context, 'templates');
  const { items, total } = await deps.assets.listUploads(context.caller.orgId, paging);
  return toPage(
    items.map((view) => toUploadDto(view, deps.hrefOf(view.id))),
    paging.page,
    paging.size,
    total,
  );
};
