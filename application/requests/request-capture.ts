import type { CaptureRequested } from '../../domain/renders/capture-events.js';
import { renderDecider } from '../../domain/renders/render-decider.js';
import { renderStream } from '../../domain/renders/render-events.js';
import { handleCommand, type CommandDeps } from '../shared/command-handler.js';
import type { RequestContext } from '../shared/request-context.js';

/** Accepts a screenshot or PDF of a web page; captures share the render stream and its later commands. */
export const requestCapture = (deps: CommandDeps, requested: CaptureRequested['data'], context: RequestContext) =>
  handleCommand(deps, renderDecider, renderStream(requested.requestId), { type: 'RequestCapture', data: requested }, context, { newStream: true });
