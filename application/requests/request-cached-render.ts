import { renderDecider } from '../../domain/renders/render-decider.js';
import { renderStream, type RenderRequested, type StoredFile } from '../../domain/renders/render-events.js';
import { handleCommand, type CommandDeps } from '../shared/command-handler.js';
import type { RequestContext } from '../shared/request-context.js';

/** Accepts a render answered from the cache: requested and done in one append, free, with an earlier render's file. */
export const requestCachedRender = (deps: CommandDeps, requested: RenderRequested['data'], cached: { readonly file: StoredFile; readonly sourceRequestId: string }, context: RequestContext) =>
  handleCommand(
    deps,
    renderDecider,
    renderStream(requested.requestId),
    { type: 'RequestCachedRender', data: { request: requested, file: cached.file, sourceRequestId: cached.sourceRequestId, now: deps.clock.now().toISOString() } },
    context,
    { newStream: true },
  );
