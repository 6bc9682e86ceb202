import type { RequestContext } from '../../shared/request-context.js';
import { handleTemplateCommand, type TemplateCommandDeps } from '../template-command.js';

/** Makes renders that name no version use `version` (the latest when absent) while edits go on. */
export const publishTemplateVersion = (deps: TemplateCommandDeps, context: RequestContext, templateId: string, version: number | undefined) =>
  handleTemplateCommand(deps, context, templateId, {
    type: 'PublishTemplateVersion',
    data: { templateId, orgId: context.caller.orgId, ...(version !== undefined ? { version } : {}), now: deps.clock.now().toISOString() },
  });
