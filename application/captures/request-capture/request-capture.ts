import type { CaptureRequested } from '../../../domain/renders/capture-events.js';
import type { CommandDeps } from '../../shared/command-handler.js';
import { onRenderStream } from '../../shared/stream-commands.js';
import type { RequestContext } from '../../shared/request-context.js';

/** Accepts a screenshot or PDF of a web page; captures share the render stream and its later commands. */
export const requestCapture = (deps: CommandDeps, requested: CaptureRequested['data'], context: RequestContext) =>
  onRenderStream(deps, requested.requestId, { type: 'RequestCapture', data: requested }, context, { newStream: true });
