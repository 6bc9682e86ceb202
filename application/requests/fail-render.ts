import { renderDecider } from '../../domain/renders/render-decider.js';
import { renderStream } from '../../domain/renders/render-events.js';
import { systemContextFor } from '../shared/request-context.js';
import { handleCommand, type CommandDeps } from '../shared/command-handler.js';

/** Records why a request produced no file; only its first outcome counts. Returns the outcome's log position. */
export const failRender = async (deps: CommandDeps, request: { readonly orgId: string; readonly requestId: string }, reason: string) => {
  const { requestId, orgId } = request;
  const command = { type: 'FailRender', data: { requestId, reason, now: deps.clock.now().toISOString() } } as const;
  return (await handleCommand(deps, renderDecider, renderStream(requestId), command, systemContextFor(orgId, requestId))).position;
};
