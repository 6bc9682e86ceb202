import type { ProjectionProgress } from '../ports/read-models.js';
import type { CommandDeps } from '../shared/command-handler.js';
import { onTemplateStream } from '../shared/stream-commands.js';
import type { RequestContext } from '../shared/request-context.js';

export interface TemplateCommandDeps extends CommandDeps {
  readonly progress: ProjectionProgress;
}

import type { TemplateCommand } from '../../domain/templates/template-commands.js';

/**
 * Every template command: decided on the template's stream, then awaited until the read models
 * caught up, so the caller's next read (the template it gets back) sees its write.
 */
export const handleTemplateCommand = async (deps: TemplateCommandDeps, context: RequestContext, templateId: string, command: TemplateCommand) => {
  const result = await onTemplateStream(deps, templateId, command, context);
  if (result.position !== null) await deps.progress.waitFor(result.position);
  return result;
};
