import type { ComponentDocument } from '../../../domain/templates/components/component-document.js';
import type { RequestContext } from '../../shared/request-context.js';
import { handleTemplateCommand, type TemplateCommandDeps } from '../template-command.js';

/** Replaces the component document of a canvas-editor or canvas-html template. */
export const replaceTemplateComponents = (deps: TemplateCommandDeps, context: RequestContext, templateId: string, components: ComponentDocument) =>
  handleTemplateCommand(deps, context, templateId, {
    type: 'ReplaceTemplateComponents',
    data: { templateId, orgId: context.caller.orgId, components, now: deps.clock.now().toISOString() },
  });
