import { notFound, validationError } from '../../domain/shared/errors.js';
import type { TemplateChanges } from '../../domain/templates/template-events.js';
import type { TemplateFilter, TemplateReadModel, TemplateView } from '../ports/read-models.js';
import type { MergeFieldScanner } from '../ports/security.js';
import type { RequestContext } from '../shared/request-context.js';
import { requireScope } from '../shared/scopes.js';
import type { ComponentDocument } from '../../domain/templates/components/component-document.js';
import type { PageDto } from '../results/result-dto.js';
import { assertUsesComponents } from '../../domain/templates/components/document-problems.js';
import { createTemplate, type CreateTemplateInput } from './create-template/create-template.js';
import { deleteTemplate } from './delete-template/delete-template.js';
import { getTemplateVersion } from './get-template-version/get-template-version.js';
import { listTemplateVersions } from './list-template-versions/list-template-versions.js';
import { publishTemplateVersion } from './publish-template-version/publish-template-version.js';
import { replaceTemplateComponents } from './replace-template-components/replace-template-components.js';
import { replaceTemplateContent, type HtmlContentInput } from './replace-template-content/replace-template-content.js';
import { restoreTemplateVersion } from './restore-template-version/restore-template-version.js';
import type { TemplateCommandDeps } from './template-command.js';
import {
  toComponentsDto,
  toHtmlContentDto,
  toTemplateDto,
  type HtmlContentDto,
  type TemplateDto,
  type TemplateVersionDto,
  type TemplateVersionSummaryDto,
} from './template-dto.js';
import { updateTemplate } from './update-template/update-template.js';

export interface TemplateServiceDeps extends TemplateCommandDeps {
  readonly templates: TemplateReadModel;
  readonly mergeFields: MergeFieldScanner;
}

export type TemplateService = ReturnType<typeof createTemplateService>;

/**
 * The template use cases as the interfaces call them: scope checks, the command (each in a file
 * named after it) and the template read back, and the queries.
 */
export const createTemplateService = (deps: TemplateServiceDeps) => {
  const findView = async (context: RequestContext, templateId: string): Promise<TemplateView> => {
    const view = await deps.templates.get(context.caller.orgId, templateId);
    if (!view) throw notFound('Template');
    return view;
  };

  return {
    async create(context: RequestContext, input: CreateTemplateInput): Promise<TemplateDto> {
      requireScope(context, 'templates');
      const templateId = await createTemplate(deps, context, input);
      return toTemplateDto(await findView(context, templateId));
    },

    async update(context: RequestContext, templateId: string, changes: TemplateChanges): Promise<TemplateDto> {
      requireScope(context, 'templates');
      await updateTemplate(deps, context, templateId, changes);
      return toTemplateDto(await findView(context, templateId));
    },

    async remove(context: RequestContext, templateId: string): Promise<void> {
      requireScope(context, 'templates');
      await deleteTemplate(deps, context, templateId);
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
      await replaceTemplateComponents(deps, context, templateId, components);
      return toComponentsDto(await findView(context, templateId));
    },

    async replaceHtmlContent(context: RequestContext, templateId: string, input: HtmlContentInput): Promise<HtmlContentDto> {
      requireScope(context, 'templates');
      await replaceTemplateContent(deps, context, templateId, input);
      return toHtmlContentDto(await findView(context, templateId));
    },

    async listVersions(context: RequestContext, templateId: string, page: { readonly page: number; readonly size: number }): Promise<PageDto<TemplateVersionSummaryDto>> {
      requireScope(context, 'templates');
      return listTemplateVersions(deps.eventStore, context, templateId, page);
    },

    async getVersion(context: RequestContext, templateId: string, version: number): Promise<TemplateVersionDto> {
      requireScope(context, 'templates');
      return getTemplateVersion(deps.eventStore, context, templateId, version);
    },

    /** Publishes `version`, or the latest; answers the template, which shows its publishedVersion. */
    async publish(context: RequestContext, templateId: string, version: number | undefined): Promise<TemplateDto> {
      requireScope(context, 'templates');
      await publishTemplateVersion(deps, context, templateId, version);
      return toTemplateDto(await findView(context, templateId));
    },

    /** Restores `version` as a new version; answers the template as it now is. */
    async restore(context: RequestContext, templateId: string, version: number): Promise<TemplateDto> {
      requireScope(context, 'templates');
      await restoreTemplateVersion(deps, context, templateId, version);
      return toTemplateDto(await findView(context, templateId));
    },
  };
};
