import type { RequestContext } from '../shared/request-context.js';
import { deleteFont, type DeleteFontDeps } from './delete-font/delete-font.js';
import { listFonts, type ListFontsDeps } from './list-fonts/list-fonts.js';
import { uploadFont, type UploadFontDeps, type UploadFontInput } from './upload-font/upload-font.js';

export type FontServiceDeps = UploadFontDeps & DeleteFontDeps & ListFontsDeps & { readonly assets: DeleteFontDeps['assets'] & ListFontsDeps['assets'] };

export type FontService = ReturnType<typeof createFontService>;

/** The fonts use cases bound to their dependencies, as the edges call them. */
export const createFontService = (deps: FontServiceDeps) => ({
  list: (context: RequestContext) => listFonts(deps, context),
  upload: (context: RequestContext, input: UploadFontInput) => uploadFont(deps, context, input),
  delete: (context: RequestContext, fontId: string) => deleteFont(deps, context, fontId),
});
