import type { RequestContext } from '../../shared/request-context.js';
import { handleTemplateCommand, type TemplateCommandDeps } from '../template-command.js';

/** Makes a new version equal to `version`: its settings, content and components. */
export const restoreTemplateVersion = (deps: TemplateCommandDeps, context: RequestContext, templateId: string, version: number) =>
  handleTemplateCommand(deps, context, templateId, {
    type: 'RestoreTemplateVersion',
    data: { templateId, orgId: context.caller.orgId, version, now: deps.clock.now().toISOString() },
  });
