import type { RenderRequested, StoredFile } from '../../../domain/renders/render-events.js';
import type { CommandDeps } from '../../shared/command-handler.js';
import { onRenderStream } from '../../shared/stream-commands.js';
import type { RequestContext } from '../../shared/request-context.js';

/** Accepts a render answered from the cache: requested and done in one append, free, with an earlier render's file. */
export const recordCachedRender = (deps: CommandDeps, requested: RenderRequested['data'], cached: { readonly file: StoredFile; readonly sourceRequestId: string }, context: RequestContext) =>
  onRenderStream(
    deps,
    requested.requestId,
    { type: 'RequestCachedRender', data: { request: requested, file: cached.file, sourceRequestId: cached.sourceRequestId, now: deps.clock.now().toISOString() } },
    context,
    { newStream: true },
  );
