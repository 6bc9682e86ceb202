import { systemContextFor } from '../../shared/request-context.js';
import type { CommandDeps } from '../../shared/command-handler.js';
import { onRenderStream } from '../../shared/stream-commands.js';

/**
 * Records why a request produced no file; only its first outcome counts. Returns the outcome's log
 * position, and whether this call recorded the failure (not when the request already had an outcome).
 */
export const failRender = async (deps: CommandDeps, request: { readonly orgId: string; readonly requestId: string }, reason: string) => {
  const { requestId, orgId } = request;
  const command = { type: 'FailRender', data: { requestId, reason, now: deps.clock.now().toISOString() } } as const;
  const { position, events } = await onRenderStream(deps, requestId, command, systemContextFor(orgId, requestId));
  return { position, recorded: events.length > 0 };
};
