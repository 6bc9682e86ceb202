import type { StoredFile } from '../../domain/renders/render-events.js';
import { systemContextFor } from '../shared/request-context.js';
import type { CommandDeps } from '../shared/command-handler.js';
import { onRenderStream } from '../shared/stream-commands.js';

/** Records the stored file of a request; only its first outcome counts. Returns the outcome's log position. */
export const completeRender = async (deps: CommandDeps, request: { readonly orgId: string; readonly requestId: string }, file: StoredFile) => {
  const { requestId, orgId } = request;
  const command = { type: 'CompleteRender', data: { ...file, requestId, cached: false, sourceRequestId: null, now: deps.clock.now().toISOString() } } as const;
  return (await onRenderStream(deps, requestId, command, systemContextFor(orgId, requestId))).position;
};
