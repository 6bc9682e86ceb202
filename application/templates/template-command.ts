import { templateStream } from '../../domain/templates/template-events.js';
import { templateDecider } from '../../domain/templates/template-decider.js';
import type { ProjectionProgress } from '../ports/read-models.js';
import { handleCommand, type CommandDeps } from '../shared/command-handler.js';
import type { RequestContext } from '../shared/request-context.js';

export interface TemplateCommandDeps extends CommandDeps {
  readonly progress: ProjectionProgress;
}

export type TemplateCommand = Parameters<typeof templateDecider.decide>[0];

/**
 * Every template command: decided on the template's stream, then awaited until the read models
 * caught up, so the caller's next read (the template it gets back) sees its write.
 */
export const handleTemplateCommand = async (deps: TemplateCommandDeps, context: RequestContext, templateId: string, command: TemplateCommand) => {
  const result = await handleCommand(deps, templateDecider, templateStream(templateId), command, context);
  if (result.position !== null) await deps.progress.waitFor(result.position);
  return result;
};
