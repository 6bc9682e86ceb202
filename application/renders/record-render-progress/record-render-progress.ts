import { systemContextFor } from '../../shared/request-context.js';
import type { CommandDeps } from '../../shared/command-handler.js';
import { onRenderStream } from '../../shared/stream-commands.js';

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
  onRenderStream(
    deps,
    request.requestId,
    { type: 'RecordRenderProgress', data: { requestId: request.requestId, framesDone, framesTotal, now: deps.clock.now().toISOString(), ...(segment === undefined ? {} : { segment }) } },
    systemContextFor(request.orgId, request.requestId),
  );
