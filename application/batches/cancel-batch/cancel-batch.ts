import type { ProjectionProgress } from '../../ports/read-models.js';
import type { CommandDeps } from '../../shared/command-handler.js';
import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';
import { onBatchStream } from '../../shared/stream-commands.js';
import { readYourWrite } from '../../shared/read-your-writes.js';

/**
 * Cancels the rows of a batch not started yet: they are never recorded nor charged. Rows rendering
 * now finish and are charged as any render. Cancelling again is a no-op; an ended batch is a 409.
 */
export const cancelBatch = async (deps: CommandDeps & { readonly progress: ProjectionProgress }, context: RequestContext, batchId: string): Promise<void> => {
  requireScope(context, 'render');
  const { orgId } = context.caller;
  await readYourWrite(deps.progress, onBatchStream(deps, batchId, { type: 'CancelBatch', data: { batchId, orgId, now: deps.clock.now().toISOString() } }, context));
};
