import type { FontCatalog, FontDto } from '../../ports/font-catalog.js';
import type { AssetReadModel } from '../../ports/read-models.js';
import type { RequestContext } from '../../shared/request-context.js';
import { toCustomFontDto, type CustomFontDto } from '../font-dto.js';

export interface ListFontsDeps {
  readonly catalog: FontCatalog;
  readonly assets: Pick<AssetReadModel, 'listFonts'>;
}

/** Every font the caller's renders can use: the machine's, then the organization's own uploads. */
export const listFonts = async (deps: ListFontsDeps, context: RequestContext): Promise<(FontDto | CustomFontDto)[]> => {
  const [installed, uploaded] = await Promise.all([deps.catalog.list(), deps.assets.listFonts(context.caller.orgId)]);
  return [...installed, ...uploaded.map(toCustomFontDto)];
};
