import type { FileStorage } from '../../ports/file-storage.js';
import type { ProjectionProgress } from '../../ports/read-models.js';
import type { CommandDeps } from '../../shared/command-handler.js';
import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';
import { onRenderStream } from '../../shared/stream-commands.js';
import { readModelsReach } from '../../shared/read-your-writes.js';

export interface DeleteResultDeps extends CommandDeps {
  readonly storage: Pick<FileStorage, 'delete'>;
  readonly progress: ProjectionProgress;
}

/**
 * Deletes the caller's finished result; another organization's is not found, a pending one is a
 * conflict. The file goes with it when the result owns it, never one a cache hit borrowed, which
 * its source and the other hits still serve; the aggregate's state tells which, so nothing is read
 * twice. Answers once the read models have the deletion.
 */
export const deleteResult = async (deps: DeleteResultDeps, context: RequestContext, requestId: string): Promise<void> => {
  requireScope(context, 'render');
  const { state, position } = await onRenderStream(
    deps,
    requestId,
    { type: 'DeleteResult', data: { requestId, orgId: context.caller.orgId, now: deps.clock.now().toISOString() } },
    context,
  );
  const file = state.status === 'absent' ? null : state.file;
  if (file?.owned) await deps.storage.delete(file.storageKey);
  await readModelsReach(deps.progress, position);
};
