import type { CommandDeps } from '../shared/command-handler.js';
import { onRenderStream } from '../shared/stream-commands.js';
import type { RequestContext } from '../shared/request-context.js';

/**
 * Deletes the caller's finished result; another organization's is not found, a pending one is a
 * conflict. Answers the storage key of the file that goes with it: the result's own file, never
 * one a cache hit borrowed, which its source and the other hits still serve.
 */
export const deleteResult = async (deps: CommandDeps, requestId: string, context: RequestContext) => {
  const { state, position } = await onRenderStream(
    deps,
    requestId,
    { type: 'DeleteResult', data: { requestId, orgId: context.caller.orgId, now: deps.clock.now().toISOString() } },
    context,
  );
  const file = state.status === 'absent' ? null : state.file;
  return { position, fileToDelete: file?.owned ? file.storageKey : null };
};
