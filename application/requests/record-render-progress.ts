import { renderDecider } from '../../domain/renders/render-decider.js';
import { renderStream } from '../../domain/renders/render-events.js';
import { systemContextFor } from '../shared/request-context.js';
import { handleCommand, type CommandDeps } from '../shared/command-handler.js';

/**
 * Records how far a video's capture got (or one segment's, given `segment`); the decider keeps only
 * progress that is ahead of what is recorded.
 */
export const recordRenderProgress = (
  deps: CommandDeps,
  request: { readonly orgId: string; readonly requestId: string },
  framesDone: number,
  framesTotal: number,
  segment?: number,
) =>
  handleCommand(
    deps,
    renderDecider,
    renderStream(request.requestId),
    { type: 'RecordRenderProgress', data: { requestId: request.requestId, framesDone, framesTotal, now: deps.clock.now().toISOString(), ...(segment === undefined ? {} : { segment }) } },
    systemContextFor(request.orgId, request.requestId),
  );
