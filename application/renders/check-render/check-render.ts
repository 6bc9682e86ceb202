import { notFound } from '../../../domain/shared/errors.js';
import type { OutputFormat } from '../../../domain/renders/output-formats.js';
import type { EventStore } from '../../ports/event-store.js';
import type { TemplateReadModel } from '../../ports/read-models.js';
import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';
import { templateToRender } from '../request-render/template-to-render.js';
import { checkRenderData } from './check-render-data.js';

export interface CheckRenderInput {
  readonly template: string;
  readonly data?: Readonly<Record<string, unknown>>;
  readonly outputFormat?: OutputFormat;
  readonly templateVersion?: number;
}

/** What a render with this input would meet; nothing is rendered, recorded or charged. */
export interface RenderCheck {
  readonly valid: boolean;
  readonly template: string;
  /** The version the render would draw: the one named, else the published one, else the latest. */
  readonly templateVersion: number;
  /** One line per problem that would refuse the render, naming its key. */
  readonly problems: readonly string[];
  /** html-editor merge fields the data leaves out, with the sample value they render as ('' renders blank). */
  readonly missing: readonly { readonly key: string; readonly defaultValue: string }[];
  /** What the render would cost when it is not a cache hit. */
  readonly credits: number;
}

const asText = (value: unknown) => (value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value));

/** Checks render data against the template version it would draw, as a render (or a batch row) checks it, for a key that may render. */
export const checkRender = async (
  deps: { readonly templates: Pick<TemplateReadModel, 'get'>; readonly eventStore: EventStore },
  context: RequestContext,
  input: CheckRenderInput,
): Promise<RenderCheck> => {
  requireScope(context, 'render');
  const latest = await deps.templates.get(context.caller.orgId, input.template);
  if (!latest) throw notFound('Template');
  const template = await templateToRender(deps.eventStore, latest, input.templateVersion);
  const { problems, cost } = checkRenderData(template, input);
  const data = input.data ?? {};
  const missing =
    template.editor === 'html-editor'
      ? template.mergeFields.filter((key) => data[key] === undefined || data[key] === null).map((key) => ({ key, defaultValue: asText(template.sampleData?.[key]) }))
      : [];
  return { valid: problems.length === 0, template: template.id, templateVersion: template.version, problems, missing, credits: cost };
};
