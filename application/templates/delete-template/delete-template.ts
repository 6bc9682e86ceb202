import type { RequestContext } from '../../shared/request-context.js';
import { handleTemplateCommand, type TemplateCommandDeps } from '../template-command.js';

/** Deletes a template; renders already made from it keep the revision they pinned. */
export const deleteTemplate = (deps: TemplateCommandDeps, context: RequestContext, templateId: string) =>
  handleTemplateCommand(deps, context, templateId, { type: 'DeleteTemplate', data: { templateId, orgId: context.caller.orgId, now: deps.clock.now().toISOString() } });
