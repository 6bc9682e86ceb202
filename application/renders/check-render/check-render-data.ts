import { renderCost } from '../../../domain/renders/pricing.js';
import type { OutputFormat } from '../../../domain/renders/output-formats.js';
import { DomainError } from '../../../domain/shared/errors.js';
import { assertJsonFieldSizes } from '../../../domain/shared/json-size.js';
import type { TemplateView } from '../../ports/read-models.js';
import { buildSpec } from '../request-render/render-spec.js';

/** The keys render data may give: the template's properties (canvas) or merge fields (html-editor). */
export const dataKeysOf = (template: TemplateView): ReadonlySet<string> =>
  new Set(template.editor === 'html-editor' ? template.mergeFields : template.properties.map((property) => property.key));

export interface DataCheck {
  /** One line per problem that refuses the render, each naming its key: unknown keys, bad values, locked components, size. */
  readonly problems: readonly string[];
  /** What the render costs when it is not a cache hit; 0 while it has problems. */
  readonly cost: number;
}

/**
 * Render data checked as its render would check it, as a report rather than a refusal: a key the
 * template does not use (a misspelt key or column would otherwise blank nothing and change nothing),
 * then the spec the render would pin (values, locked components, output options), and the size
 * bounds. Pure: reads and records nothing. Batch rows and validate-only requests share it.
 */
export const checkRenderData = (
  template: TemplateView,
  input: { readonly data?: Readonly<Record<string, unknown>>; readonly metadata?: unknown; readonly outputFormat?: OutputFormat },
  keys: ReadonlySet<string> = dataKeysOf(template),
): DataCheck => {
  const unused = Object.keys(input.data ?? {}).filter((key) => !keys.has(key));
  if (unused.length > 0) return { problems: unused.map((key) => `${key}: the template has no ${template.editor === 'html-editor' ? 'merge field' : 'property'} ${key}`), cost: 0 };
  try {
    assertJsonFieldSizes({ data: input.data, metadata: input.metadata });
    const spec = buildSpec(template, { template: template.id, data: { ...input.data }, outputFormat: input.outputFormat }, 'check');
    return { problems: [], cost: renderCost(spec.format, spec.duration, false) };
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== 'validation') throw error;
    return { problems: (error.details.length > 0 ? error.details : [error.message]).map((detail) => detail.replace(/^data\./, '')), cost: 0 };
  }
};
