import type { CaptureRequested } from '../../domain/renders/capture-events.js';
import { resultFileOf, type AcceptedRequest } from '../../domain/renders/render.js';
import type { RenderCompleted, RenderEvent, RenderFailed, RenderProgressed, RenderRequested } from '../../domain/renders/render-events.js';
import { videoFrameCount } from '../../domain/renders/video-timing.js';
import { isVideoFormat } from '../../domain/templates/template-settings.js';
import type { ResultView } from '../ports/read-models.js';
import { requestedWebhook, webhookAfter } from '../webhooks/webhook-view.js';

/**
 * How render events shape a result. The results projection writes these fields to its rows and the
 * result service folds a stream with them when the projection has not caught up, so both agree.
 */

const epochSeconds = (iso: string) => Math.floor(new Date(iso).getTime() / 1000);

/** What every result starts as, whatever produces its file: pending, with no file yet. */
const pendingFields = (data: AcceptedRequest) => {
  const { fileName, expires } = resultFileOf(data);
  return {
    requestId: data.requestId,
    orgId: data.orgId,
    status: 'pending' as const,
    // The real pixel size is known once the file exists (scale factor, crop).
    width: null,
    height: null,
    expiresAt: expires === null ? null : epochSeconds(data.requestedAt) + expires,
    storageKey: null,
    fileName,
    contentType: null,
    bytes: null,
    cached: false,
    request: data.request,
    failureReason: null,
    credits: data.credits,
    createdAt: new Date(data.requestedAt),
    completedAt: null,
    framesDone: null,
    framesTotal: null,
    webhook: requestedWebhook(data.webhookUrl),
  };
};

export const requestedResult = (data: RenderRequested['data']): ResultView => ({
  ...pendingFields(data),
  kind: 'template',
  templateId: data.spec.templateId,
  templateName: data.spec.templateName,
  url: null,
  format: data.spec.format,
  cacheKey: data.cacheKey,
  batchName: data.batchName,
  metadata: data.metadata,
  dataFrom: data.dataFrom,
  ...videoProgressOf(data.spec),
});

/** A video's frame count is fixed by its request: a pending video shows 0 of them until frames come in. */
const videoProgressOf = (spec: RenderRequested['data']['spec']) =>
  isVideoFormat(spec.format) && spec.duration !== null && spec.fps !== null
    ? { framesDone: 0, framesTotal: videoFrameCount(spec.duration, spec.fps) }
    : { framesDone: null, framesTotal: null };

/** Progress never goes back, whatever order retried attempts report it in. */
export const progressedFields = (view: Pick<ResultView, 'framesDone'>, data: RenderProgressed['data']) => ({
  framesDone: Math.max(view.framesDone ?? 0, data.framesDone),
  framesTotal: data.framesTotal,
});

/** A capture has no template: the URL of its page says what it shows. It is never cached or batched. */
export const requestedCaptureResult = (data: CaptureRequested['data']): ResultView => ({
  ...pendingFields(data),
  kind: data.capture.kind,
  templateId: '',
  templateName: '',
  url: data.capture.url,
  format: data.capture.kind === 'pdf' ? 'pdf' : 'png',
  dataFrom: null,
  cacheKey: null,
  batchName: null,
  metadata: null,
});

export const completedFields = (data: RenderCompleted['data']) => ({
  status: 'done' as const,
  storageKey: data.storageKey,
  fileName: data.fileName,
  contentType: data.contentType,
  bytes: data.bytes,
  width: data.width,
  height: data.height,
  cached: data.cached,
  completedAt: new Date(data.completedAt),
});

/** A failed render is refunded, so it shows no cost. */
export const failedFields = (data: RenderFailed['data']) => ({
  status: 'failed' as const,
  failureReason: data.reason,
  credits: 0,
  completedAt: new Date(data.failedAt),
});

/** The result one render stream describes; null when the stream is empty or the result was deleted. */
export const foldResultView = (events: readonly RenderEvent[]): ResultView | null =>
  events.reduce<ResultView | null>((view, event) => {
    if (event.type === 'RenderRequested') return requestedResult(event.data);
    if (event.type === 'CaptureRequested') return requestedCaptureResult(event.data);
    if (view === null) return null;
    switch (event.type) {
      case 'RenderCompleted':
        return view.status === 'pending' ? { ...view, ...completedFields(event.data) } : view;
      case 'RenderFailed':
        // A failure is delivered like a success: the webhook stays pending until its delivery is recorded.
        return view.status === 'pending' ? { ...view, ...failedFields(event.data) } : view;
      case 'ResultDeleted':
        return null;
      case 'WebhookDeliveryFailed':
      case 'WebhookDelivered':
      case 'WebhookAbandoned':
        return { ...view, webhook: webhookAfter(view.webhook ?? null, event) };
      case 'RenderProgressed':
        return view.status === 'pending' ? { ...view, ...progressedFields(view, event.data) } : view;
      default:
        // Events added to render streams later leave the result as it is until they are given a meaning here.
        return view;
    }
  }, null);
