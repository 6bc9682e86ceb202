import { validationError } from '../../../domain/shared/errors.js';
import type { FontInspector } from '../../ports/asset-inspection.js';
import type { FontView } from '../../ports/read-models.js';
import { handleAssetCommand, storedResultBytes, storeThenRecord, type AssetDeps } from '../../assets/asset-command.js';
import { FONT_CONTENT_TYPES, fontStorageKey } from '../../assets/asset-locations.js';
import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';
import { toCustomFontDto, type CustomFontDto } from '../font-dto.js';
import { familyProblem, familyFromFont } from './font-family.js';

export const MAX_FONT_BYTES = 10 * 1024 * 1024;

export interface UploadFontDeps extends AssetDeps {
  readonly fontInspector: FontInspector;
}

export interface UploadFontInput {
  readonly content: Buffer;
  /** The family templates will name; the font's own family name when absent. */
  readonly family?: string;
}

/**
 * Parses the font before anything is stored (a file that is not a whole, sane font stores nothing),
 * stores it, and records it against the organization's upload storage.
 */
export const uploadFont = async (deps: UploadFontDeps, context: RequestContext, input: UploadFontInput): Promise<CustomFontDto> => {
  requireScope(context, 'templates');
  if (input.content.length > MAX_FONT_BYTES) {
    throw validationError(`The font is larger than ${MAX_FONT_BYTES} bytes`, [`file: ${input.content.length} bytes; at most ${MAX_FONT_BYTES} (10 MB)`]);
  }
  const facts = await deps.fontInspector.inspect(input.content);
  const family = input.family?.trim() || familyFromFont(facts.family);
  const problem = familyProblem(family);
  if (problem) throw validationError(`The font family name cannot be used: ${problem}`, [`family: ${problem}`]);

  const orgId = context.caller.orgId;
  const fontId = deps.ids.next();
  const storageKey = fontStorageKey(orgId, fontId, facts.format);
  const now = deps.clock.now();
  const { format, weight, style, subsets, category } = facts;
  const font: FontView = { id: fontId, orgId, family, originalName: facts.family, format, weight, style, subsets, category, bytes: input.content.length, storageKey, createdAt: now };
  const resultBytes = await storedResultBytes(deps, orgId);
  await storeThenRecord(deps, storageKey, input.content, FONT_CONTENT_TYPES[facts.format], () =>
    handleAssetCommand(deps, context, {
      type: 'UploadFont',
      data: {
        orgId,
        fontId,
        family,
        originalName: facts.family,
        weight,
        style,
        format,
        subsets: [...subsets],
        category,
        bytes: font.bytes,
        storageKey,
        storedResultBytes: resultBytes,
        now: now.toISOString(),
      },
    }),
  );
  return toCustomFontDto(font);
};
