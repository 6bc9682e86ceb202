import { renderDecider } from '../../domain/renders/render-decider.js';
import { renderStream } from '../../domain/renders/render-events.js';
import { handleCommand, type CommandDeps } from '../shared/command-handler.js';
import type { RequestContext } from '../shared/request-context.js';

/** Deletes the caller's finished result; another organization's is not found, a pending one is a conflict. */
export const deleteResult = (deps: CommandDeps, requestId: string, context: RequestContext) =>
  handleCommand(
    deps,
    renderDecider,
    renderStream(requestId),
    { type: 'DeleteResult', data: { requestId, orgId: context.caller.orgId, now: deps.clock.now().toISOString() } },
    context,
  );
