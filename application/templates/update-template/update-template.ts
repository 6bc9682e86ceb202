import type { TemplateChanges } from '../../../domain/templates/template-events.js';
import type { RequestContext } from '../../shared/request-context.js';
import { handleTemplateCommand, type TemplateCommandDeps } from '../template-command.js';

/** Renames, retags or changes the settings of a template; the decider refuses what would break it. */
export const updateTemplate = (deps: TemplateCommandDeps, context: RequestContext, templateId: string, changes: TemplateChanges) =>
  handleTemplateCommand(deps, context, templateId, {
    type: 'UpdateTemplate',
    data: { templateId, orgId: context.caller.orgId, changes, now: deps.clock.now().toISOString() },
  });
