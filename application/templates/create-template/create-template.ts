import type { Editor, Fps, OutputFormat } from '../../../domain/templates/template-settings.js';
import type { RequestContext } from '../../shared/request-context.js';
import { handleTemplateCommand, type TemplateCommandDeps } from '../template-command.js';

export interface CreateTemplateInput {
  readonly name: string;
  readonly width: number;
  readonly height: number;
  readonly editor: Editor;
  readonly tags?: readonly string[];
  readonly outputFormat?: OutputFormat;
  readonly quality?: number;
  readonly scaleFactor?: number;
  readonly recordDuration?: number;
  readonly fps?: Fps;
}

/** A new template of the caller's organization, under a fresh id; resolves to that id. */
export const createTemplate = async (deps: TemplateCommandDeps, context: RequestContext, input: CreateTemplateInput): Promise<string> => {
  const templateId = deps.ids.next();
  await handleTemplateCommand(deps, context, templateId, {
    type: 'CreateTemplate',
    data: { ...input, templateId, orgId: context.caller.orgId, createdBy: 'API', now: deps.clock.now().toISOString() },
  });
  return templateId;
};
