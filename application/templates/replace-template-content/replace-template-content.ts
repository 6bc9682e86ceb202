import type { MergeFieldScanner } from '../../ports/security.js';
import type { RequestContext } from '../../shared/request-context.js';
import { handleTemplateCommand, type TemplateCommandDeps } from '../template-command.js';

export interface HtmlContentInput {
  readonly html: string;
  readonly css?: string;
  readonly sampleData?: Record<string, unknown>;
}

/** Replaces an html-editor template's HTML, CSS and sample data; its merge fields are read from the HTML. */
export const replaceTemplateContent = (deps: TemplateCommandDeps & { readonly mergeFields: MergeFieldScanner }, context: RequestContext, templateId: string, input: HtmlContentInput) =>
  handleTemplateCommand(deps, context, templateId, {
    type: 'ReplaceTemplateContent',
    data: {
      templateId,
      orgId: context.caller.orgId,
      html: input.html,
      css: input.css ?? '',
      sampleData: input.sampleData ?? {},
      mergeFields: deps.mergeFields.scan(input.html),
      now: deps.clock.now().toISOString(),
    },
  });
