import type { StoredFile } from '../../../domain/renders/render-events.js';
import { systemContextFor } from '../../shared/request-context.js';
import type { Render } from '../../../domain/renders/render.js';
import type { CommandDeps, KnownStream } from '../../shared/command-handler.js';
import { onRenderStream } from '../../shared/stream-commands.js';

/**
 * Records the stored file of a request; only its first outcome counts. Returns the outcome's log
 * position, and whether this call recorded `file` (not when the request already had an outcome).
 * With the stream as the caller read it (`known`), it is decided without reading it again.
 */
export const completeRender = async (
  deps: CommandDeps,
  request: { readonly orgId: string; readonly requestId: string },
  file: StoredFile,
  known?: KnownStream<Render>,
) => {
  const { requestId, orgId } = request;
  const command = { type: 'CompleteRender', data: { ...file, requestId, cached: false, sourceRequestId: null, now: deps.clock.now().toISOString() } } as const;
  const { position, events } = await onRenderStream(deps, requestId, command, systemContextFor(orgId, requestId), known ? { known } : {});
  return { position, recorded: events.length > 0 };
};
