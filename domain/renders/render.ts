import { assertNever } from '../shared/decider.js';
import type { CaptureRequested } from './capture-events.js';
import { asRequestedAndCompleted, type RenderEvent, type RenderRequested, type StoredFile } from './render-events.js';
import { evolveWebhookDeliveries, noWebhookDeliveries, type WebhookDeliveries } from './webhook-attempts.js';

export type RenderStatus = 'pending' | 'done' | 'failed';

/**
 * The file a render answered with, and whose it is: a render that stored its file owns it; a cache
 * hit borrows the file of the render that stored it. Deleting a result takes only an owned file away.
 */
export interface RenderFile extends StoredFile {
  readonly owned: boolean;
}

interface Accepted {
  readonly status: RenderStatus;
  readonly file: RenderFile | null;
  /** Why it produced no file, once failed. */
  readonly failureReason: string | null;
  readonly deleted: boolean;
  /** Webhook deliveries by delivery id. */
  readonly webhookDeliveries: WebhookDeliveries;
  /** Frames a video render has captured so far, the most any attempt reached. */
  readonly framesDone: number;
  /** Of a video rendered in segments: frames captured per segment index, the most any attempt reached. */
  readonly segmentFrames: Readonly<Record<number, number>>;
}

/** A render of a template, or a capture of a web page (`kind`); both end and are deleted alike. */
export type Render =
  | { readonly status: 'absent' }
  | (Accepted & { readonly kind: 'template'; readonly request: RenderRequested['data'] })
  | (Accepted & { readonly kind: 'capture'; readonly request: CaptureRequested['data'] });

/** The accepted request of either kind: what charging, recording and webhooks need. */
export type AcceptedRequest = RenderRequested['data'] | CaptureRequested['data'];

/** File name and link lifetime of the result, wherever the request keeps them. */
export const resultFileOf = (request: AcceptedRequest): { fileName: string; expires: number | null } =>
  'capture' in request ? request.capture : request.spec;

export const initialRender = (): Render => ({ status: 'absent' });

export const evolveRender = (state: Render, event: RenderEvent): Render => {
  if (event.type === 'RenderServedFromCache') {
    const [requested, completed] = asRequestedAndCompleted(event);
    return evolveRender(evolveRender(state, requested), completed);
  }
  if (event.type === 'RenderRequested') {
    return { status: 'pending', kind: 'template', request: event.data, file: null, failureReason: null, deleted: false, webhookDeliveries: noWebhookDeliveries(), framesDone: 0, segmentFrames: {} };
  }
  if (event.type === 'CaptureRequested') {
    return { status: 'pending', kind: 'capture', request: event.data, file: null, failureReason: null, deleted: false, webhookDeliveries: noWebhookDeliveries(), framesDone: 0, segmentFrames: {} };
  }
  if (state.status === 'absent') return state;
  switch (event.type) {
    case 'RenderCompleted': {
      const { storageKey, fileName, contentType, bytes, width, height, fit, cached } = event.data;
      return { ...state, status: 'done', file: { storageKey, fileName, contentType, bytes, width, height, ...(fit ? { fit } : {}), owned: !cached } };
    }
    case 'RenderFailed':
      return { ...state, status: 'failed', failureReason: event.data.reason };
    case 'ResultDeleted':
      return { ...state, deleted: true };
    case 'RenderProgressed': {
      const { framesDone, segment } = event.data;
      const segmentFrames = segment ? { ...state.segmentFrames, [segment.index]: Math.max(state.segmentFrames[segment.index] ?? 0, segment.framesDone) } : state.segmentFrames;
      return { ...state, framesDone: Math.max(state.framesDone, framesDone), segmentFrames };
    }
    case 'WebhookDeliveryFailed':
    case 'WebhookDelivered':
    case 'WebhookAbandoned':
      return { ...state, webhookDeliveries: evolveWebhookDeliveries(state.webhookDeliveries, event) };
    default:
      return assertNever(event);
  }
};
