import { assertNever } from '../../domain/shared/decider.js';
import type { CaptureRequested } from '../../domain/renders/capture-events.js';
import { resultFileOf, type AcceptedRequest } from '../../domain/renders/render.js';
import { asRequestedAndCompleted, type RenderCompleted, type RenderEvent, type RenderFailed, type RenderProgressed, type RenderRequested } from '../../domain/renders/render-events.js';
import { videoFrameCount } from '../../domain/renders/video-timing.js';
import { isVideoFormat } from '../../domain/templates/template-settings.js';
import type { ResultView, WebhookDeliveryView } from '../ports/read-models.js';
import { requestedWebhook, webhookAfter } from '../webhooks/webhook-view.js';

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
    fit: null,
    test: data.test === true,
    cached: false,
    request: data.request,
    failureReason: null,
    credits: data.credits,
    createdAt: new Date(data.requestedAt),
    completedAt: null,
    framesDone: null,
    framesTotal: null,
    webhook: requestedWebhook(data.webhookUrl),
    deleted: false,
  };
};

const requestedResult = (data: RenderRequested['data']): ResultState => ({
  ...pendingFields(data),
  kind: 'template',
  templateId: data.spec.templateId,
  templateName: data.spec.templateName,
  templateVersion: data.spec.templateVersion ?? null,
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
const progressedFields = (framesDone: number | null, data: RenderProgressed['data']) => ({
  framesDone: Math.max(framesDone ?? 0, data.framesDone),
  framesTotal: data.framesTotal,
});

/** A capture has no template: the URL of its page says what it shows. It is never cached or batched. */
const requestedCaptureResult = (data: CaptureRequested['data']): ResultState => ({
  ...pendingFields(data),
  kind: data.capture.kind,
  templateId: '',
  templateName: '',
  templateVersion: null,
  url: data.capture.url,
  format: data.capture.kind === 'pdf' ? 'pdf' : (data.capture.format ?? 'png'),
  dataFrom: null,
  cacheKey: null,
  batchName: null,
  metadata: null,
});

const completedFields = (data: RenderCompleted['data']) => ({
  status: 'done' as const,
  storageKey: data.storageKey,
  fileName: data.fileName,
  contentType: data.contentType,
  bytes: data.bytes,
  width: data.width,
  height: data.height,
  fit: data.fit ?? null,
  cached: data.cached,
  completedAt: new Date(data.completedAt),
});

/** A failed render is refunded, so it shows no cost. */
const failedFields = (data: RenderFailed['data']) => ({
  status: 'failed' as const,
  failureReason: data.reason,
  credits: 0,
  completedAt: new Date(data.failedAt),
});

/**
 * A result as its own stream tells it. A deleted result keeps its fields (the read model still needs
 * its file to take it from the cache hits) and goes on recording webhook deliveries; views hide it.
 */
export interface ResultState extends ResultView {
  readonly webhook: WebhookDeliveryView | null;
  readonly deleted: boolean;
}

/** What the next event depends on of the result so far: rows of the read model carry it too. */
interface ResultSoFar {
  readonly status: string;
  readonly framesDone?: number | null;
  readonly webhook?: WebhookDeliveryView | null;
}

/** The events `evolveResult` makes a result from alone, whatever came before: a request of either kind, a cache hit. */
export const startsResult = (event: RenderEvent): boolean =>
  event.type === 'RenderRequested' || event.type === 'CaptureRequested' || event.type === 'RenderServedFromCache';

/**
 * The one fold of a render stream into its result, for the results projection's rows and for the
 * view read from the stream while the projection lags. Returns `result` itself when the event changes
 * nothing. Only the first outcome counts, as in the decider: a late one from a retried activity is ignored.
 */
export const evolveResult = <Result extends ResultSoFar>(result: Result | null, event: RenderEvent): Result | ResultState | null => {
  if (event.type === 'RenderRequested') return requestedResult(event.data);
  if (event.type === 'RenderServedFromCache') {
    const [requested, completed] = asRequestedAndCompleted(event);
    return evolveResult(requestedResult(requested.data), completed);
  }
  if (event.type === 'CaptureRequested') return requestedCaptureResult(event.data);
  if (result === null) return null;
  switch (event.type) {
    case 'RenderCompleted':
      return result.status === 'pending' ? { ...result, ...completedFields(event.data) } : result;
    case 'RenderFailed':
      // A failure is delivered like a success: the webhook stays pending until its delivery is recorded.
      return result.status === 'pending' ? { ...result, ...failedFields(event.data) } : result;
    case 'RenderProgressed':
      return result.status === 'pending' ? { ...result, ...progressedFields(result.framesDone ?? null, event.data) } : result;
    case 'ResultDeleted':
      return { ...result, deleted: true };
    case 'WebhookDeliveryFailed':
    case 'WebhookDelivered':
    case 'WebhookAbandoned':
      return { ...result, webhook: webhookAfter(result.webhook ?? null, event) };
    default:
      return assertNever(event);
  }
};

/** The result one render stream describes; null when the stream is empty or the result was deleted. */
export const foldResultView = (events: readonly RenderEvent[]): ResultView | null => {
  const result = events.reduce<ResultState | null>((soFar, event) => evolveResult(soFar, event), null);
  if (result === null || result.deleted) return null;
  const { deleted: _deleted, ...view } = result;
  return view;
};
