import { notFound, validationError } from '../../domain/shared/errors.js';
import type { TemplateChanges } from '../../domain/templates/template-events.js';
import { templateStream } from '../../domain/templates/template-events.js';
import { templateDecider } from '../../domain/templates/template-decider.js';
import type { Editor, Fps, OutputFormat } from '../../domain/templates/template-settings.js';
import type { ProjectionProgress, TemplateFilter, TemplateReadModel, TemplateView } from '../ports/read-models.js';
import type { MergeFieldScanner } from '../ports/security.js';
import { handleCommand, type CommandDeps } from '../shared/command-handler.js';
import type { RequestContext } from '../shared/request-context.js';
import { requireScope } from '../shared/scopes.js';
import type { ComponentDocument } from '../../domain/templates/components/component-document.js';
import { assertUsesComponents } from '../../domain/templates/components/document-problems.js';
import { toComponentsDto, toHtmlContentDto, toTemplateDto, type HtmlContentDto, type TemplateDto } from './template-dto.js';

export interface CreateTemplateInput {
  readonly name: string;
  readonly width: number;
  readonly height: number;
  readonly editor: Editor;
  readonly tags?: readonly string[];
  readonly outputFormat?: OutputFormat;
  readonly quality?: number;
  readonly scaleFactor?: number;
  readonly recordDuration?: number;
  readonly fps?: Fps;
}

export interface HtmlContentInput {
  readonly html: string;
  readonly css?: string;
  readonly sampleData?: Record<string, unknown>;
}

export interface TemplateServiceDeps extends CommandDeps {
  readonly templates: TemplateReadModel;
  readonly progress: ProjectionProgress;
  readonly mergeFields: MergeFieldScanner;
}

export type TemplateService = ReturnType<typeof createTemplateService>;

export const createTemplateService = (deps: TemplateServiceDeps) => {
  const now = () => deps.clock.now().toISOString();

  const findView = async (context: RequestContext, templateId: string): Promise<TemplateView> => {
    const view = await deps.templates.get(context.caller.orgId, templateId);
    if (!view) throw notFound('Template');
    return view;
  };

  /** Commands return after the read models caught up, so the caller's next read sees its write. */
  const execute = async (context: RequestContext, templateId: string, command: Parameters<typeof templateDecider.decide>[0]) => {
    const result = await handleCommand(deps, templateDecider, templateStream(templateId), command, context);
    if (result.position !== null) await deps.progress.waitFor(result.position);
    return result;
  };

  return {
    async create(context: RequestContext, input: CreateTemplateInput): Promise<TemplateDto> {
      requireScope(context, 'templates');
      const templateId = deps.ids.next();
      await execute(context, templateId, {
        type: 'CreateTemplate',
        data: { ...input, templateId, orgId: context.caller.orgId, createdBy: 'API', now: now() },
      });
      return toTemplateDto(await findView(context, templateId));
    },

    async update(context: RequestContext, templateId: string, changes: TemplateChanges): Promise<TemplateDto> {
      requireScope(context, 'templates');
      await execute(context, templateId, {
        type: 'UpdateTemplate',
        data: { templateId, orgId: context.caller.orgId, changes, now: now() },
      });
      return toTemplateDto(await findView(context, templateId));
    },

    async remove(context: RequestContext, templateId: string): Promise<void> {
      requireScope(context, 'templates');
      await execute(context, templateId, { type: 'DeleteTemplate', data: { templateId, orgId: context.caller.orgId, now: now() } });
    },

    async get(context: RequestContext, templateId: string): Promise<TemplateDto> {
      requireScope(context, 'templates');
      return toTemplateDto(await findView(context, templateId));
    },

    async list(context: RequestContext, filter: TemplateFilter): Promise<TemplateDto[]> {
      requireScope(context, 'templates');
      return (await deps.templates.list(context.caller.orgId, filter)).map(toTemplateDto);
    },

    async getHtmlContent(context: RequestContext, templateId: string): Promise<HtmlContentDto> {
      requireScope(context, 'templates');
      const view = await findView(context, templateId);
      if (view.editor !== 'html-editor') {
        throw validationError(`Template ${templateId} uses the ${view.editor}; html-editor content is only for html-editor templates`);
      }
      return toHtmlContentDto(view);
    },

    /** The component document of a canvas-editor or canvas-html template. */
    async getComponents(context: RequestContext, templateId: string): Promise<ComponentDocument> {
      requireScope(context, 'templates');
      const view = await findView(context, templateId);
      assertUsesComponents(templateId, view.editor);
      return toComponentsDto(view);
    },

    async replaceComponents(context: RequestContext, templateId: string, components: ComponentDocument): Promise<ComponentDocument> {
      requireScope(context, 'templates');
      await execute(context, templateId, {
        type: 'ReplaceTemplateComponents',
        data: { templateId, orgId: context.caller.orgId, components, now: now() },
      });
      return toComponentsDto(await findView(context, templateId));
    },

    async replaceHtmlContent(context: RequestContext, templateId: string, input: HtmlContentInput): Promise<HtmlContentDto> {
      requireScope(context, 'templates');
      await execute(context, templateId, {
        type: 'ReplaceTemplateContent',
        data: {
          templateId,
          orgId: context.caller.orgId,
          html: input.html,
          css: input.css ?? '',
          sampleData: input.sampleData ?? {},
          mergeFields: deps.mergeFields.scan(input.html),
          now: now(),
        },
      });
      return toHtmlContentDto(await findView(context, templateId));
    },
  };
};
