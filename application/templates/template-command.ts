import type { ProjectionProgress } from '../ports/read-models.js';
import type { CommandDeps } from '../shared/command-handler.js';
import { onTemplateStream } from '../shared/stream-commands.js';
import type { RequestContext } from '../shared/request-context.js';
import type { TemplateCommand } from '../../domain/templates/template-commands.js';
import { readYourWrite } from '../shared/read-your-writes.js';

export interface TemplateCommandDeps extends CommandDeps {
  readonly progress: ProjectionProgress;
}

/**
 * Every template command: decided on the template's stream, then awaited until the read models
 * caught up, so the caller's next read (the template it gets back) sees its write.
 */
export const handleTemplateCommand = (deps: TemplateCommandDeps, context: RequestContext, templateId: string, command: TemplateCommand) =>
  readYourWrite(deps.progress, onTemplateStream(deps, templateId, command, context));
