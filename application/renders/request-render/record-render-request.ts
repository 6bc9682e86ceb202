import type { RenderRequested } from '../../../domain/renders/render-events.js';
import type { CommandDeps } from '../../shared/command-handler.js';
import { onRenderStream } from '../../shared/stream-commands.js';
import type { RequestContext } from '../../shared/request-context.js';

/** Accepts a render on a stream of its own: the request as sent, the spec it pinned and its price. */
export const recordRenderRequest = (deps: CommandDeps, requested: RenderRequested['data'], context: RequestContext) =>
  onRenderStream(deps, requested.requestId, { type: 'RequestRender', data: requested }, context, { newStream: true });
