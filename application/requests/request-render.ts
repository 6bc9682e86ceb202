import { renderDecider } from '../../domain/renders/render-decider.js';
import { renderStream, type RenderRequested } from '../../domain/renders/render-events.js';
import { handleCommand, type CommandDeps } from '../shared/command-handler.js';
import type { RequestContext } from '../shared/request-context.js';

/** Accepts a render on a stream of its own: the request as sent, the spec it pinned and its price. */
export const requestRender = (deps: CommandDeps, requested: RenderRequested['data'], context: RequestContext) =>
  handleCommand(deps, renderDecider, renderStream(requested.requestId), { type: 'RequestRender', data: requested }, context, { newStream: true });
