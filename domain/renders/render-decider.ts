import { isRenderEvent } from './render-events.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { conflict, notFound } from '../shared/errors.js';
import type { CaptureRequested } from './capture-events.js';
import type { CompleteRender, DeleteResult, FailRender, RecordRenderProgress, RenderCommand, RequestCachedRender, RequestCapture, RequestRender } from './render-commands.js';
import type { RenderCompleted, RenderEvent, RenderFailed, RenderProgressed, RenderRequested, RenderServedFromCache, ResultDeleted } from './render-events.js';
import { evolveRender, initialRender, type Render } from './render.js';
import { abandonWebhook, recordWebhookDelivery, recordWebhookFailure } from './webhook-attempts.js';

export const decideRequestRender = ({ data }: RequestRender, state: Render): RenderRequested[] => {
  if (state.status !== 'absent') throw conflict(`Render ${data.requestId} already exists`);
  return [{ type: 'RenderRequested', data }];
};

/** A cache hit is a render of its own (listed, audited) that costs nothing and reuses the stored file. */
export const decideRequestCachedRender = ({ data }: RequestCachedRender, state: Render): RenderServedFromCache[] => {
  if (state.status !== 'absent') throw conflict(`Render ${data.request.requestId} already exists`);
  const { now, sourceRequestId, file } = data;
  return [{ type: 'RenderServedFromCache', data: { ...data.request, credits: 0, file, sourceRequestId, completedAt: now } }];
};

export const decideRequestCapture = ({ data }: RequestCapture, state: Render): CaptureRequested[] => {
  if (state.status !== 'absent') throw conflict(`Render ${data.requestId} already exists`);
  return [{ type: 'CaptureRequested', data }];
};

/** Completion and failure arrive from retried activities: only the first outcome counts. */
export const decideCompleteRender = ({ data }: CompleteRender, state: Render): RenderCompleted[] => {
  if (state.status === 'absent') throw notFound('Render');
  if (state.status !== 'pending') return [];
  const { now, ...completed } = data;
  return [{ type: 'RenderCompleted', data: { ...completed, completedAt: now } }];
};

export const decideFailRender = ({ data }: FailRender, state: Render): RenderFailed[] => {
  if (state.status === 'absent') throw notFound('Render');
  if (state.status !== 'pending') return [];
  return [{ type: 'RenderFailed', data: { requestId: data.requestId, reason: data.reason, failedAt: data.now } }];
};

export const decideDeleteResult = ({ data }: DeleteResult, state: Render): ResultDeleted[] => {
  if (state.status === 'absent' || state.deleted || state.request.orgId !== data.orgId) throw notFound('Result');
  if (state.status === 'pending') throw conflict('A pending render cannot be deleted yet; wait until it is done or failed');
  return [{ type: 'ResultDeleted', data: { requestId: data.requestId, deletedAt: data.now } }];
};

/**
 * Progress of a render still pending, and only forwards: retried attempts report frames again from
 * 0. A segment's progress moves its own count forwards, and the video's by as much.
 */
export const recordProgress = ({ data }: RecordRenderProgress, state: Render): RenderProgressed[] => {
  if (state.status === 'absent') throw notFound('Render');
  if (state.status !== 'pending') return [];
  const { requestId, framesTotal, now: at } = data;
  if (data.segment === undefined) {
    if (data.framesDone <= state.framesDone) return [];
    return [{ type: 'RenderProgressed', data: { requestId, framesDone: data.framesDone, framesTotal, at } }];
  }
  const before = state.segmentFrames[data.segment] ?? 0;
  if (data.framesDone <= before) return [];
  const framesDone = Object.values(state.segmentFrames).reduce((sum, frames) => sum + frames, 0) - before + data.framesDone;
  return [{ type: 'RenderProgressed', data: { requestId, framesDone, framesTotal, at, segment: { index: data.segment, framesDone: data.framesDone } } }];
};

/** Webhook deliveries belong to a request that exists; whether its result was deleted since does not matter to them. */
const deliveriesOf = (state: Render) => {
  if (state.status === 'absent') throw notFound('Render');
  return state.webhookDeliveries;
};

export const decideRender = (command: RenderCommand, state: Render): RenderEvent[] => {
  switch (command.type) {
    case 'RequestRender':
      return decideRequestRender(command, state);
    case 'RequestCachedRender':
      return decideRequestCachedRender(command, state);
    case 'RequestCapture':
      return decideRequestCapture(command, state);
    case 'CompleteRender':
      return decideCompleteRender(command, state);
    case 'FailRender':
      return decideFailRender(command, state);
    case 'DeleteResult':
      return decideDeleteResult(command, state);
    case 'RecordRenderProgress':
      return recordProgress(command, state);
    case 'RecordWebhookFailure':
      return recordWebhookFailure(command, deliveriesOf(state));
    case 'RecordWebhookDelivery':
      return recordWebhookDelivery(command, deliveriesOf(state));
    case 'AbandonWebhook':
      return abandonWebhook(command, deliveriesOf(state));
    default:
      return assertNever(command);
  }
};

export const renderDecider: Decider<Render, RenderCommand, RenderEvent> = {
  decide: decideRender,
  evolve: evolveRender,
  initialState: initialRender,
  isEvent: isRenderEvent,
};
