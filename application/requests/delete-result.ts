import type { CommandDeps } from '../shared/command-handler.js';
import { onRenderStream } from '../shared/stream-commands.js';
import type { RequestContext } from '../shared/request-context.js';

/** Deletes the caller's finished result; another organization's is not found, a pending one is a conflict. */
export const deleteResult = (deps: CommandDeps, requestId: string, context: RequestContext) =>
  onRenderStream(
    deps,
    requestId,
    { type: 'DeleteResult', data: { requestId, orgId: context.caller.orgId, now: deps.clock.now().toISOString() } },
    context,
  );
