import type { RenderCompleted, RenderEvent, RenderFailed, RenderRequested } from '../../domain/renders/render-events.js';
import type { ResultView } from '../ports/read-models.js';

/**
 * How render events shape a result. The results projection writes these fields to its rows and the
 * result service folds a stream with them when the projection has not caught up, so both agree.
 */

const epochSeconds = (iso: string) => Math.floor(new Date(iso).getTime() / 1000);

export const requestedResult = (data: RenderRequested['data']): ResultView => ({
  requestId: data.requestId,
  orgId: data.orgId,
  templateId: data.spec.templateId,
  templateName: data.spec.templateName,
  status: 'pending',
  format: data.spec.format,
  // The real pixel size is known once the file exists (scale factor, crop).
  width: null,
  height: null,
  expiresAt: data.spec.expires === null ? null : epochSeconds(data.requestedAt) + data.spec.expires,
  storageKey: null,
  fileName: data.spec.fileName,
  contentType: null,
  bytes: null,
  cached: false,
  cacheKey: data.cacheKey,
  batchName: data.batchName,
  metadata: data.metadata,
  request: data.request,
  failureReason: null,
  credits: data.credits,
  createdAt: new Date(data.requestedAt),
  completedAt: null,
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
    if (view === null) return null;
    switch (event.type) {
      case 'RenderCompleted':
        return view.status === 'pending' ? { ...view, ...completedFields(event.data) } : view;
      case 'RenderFailed':
        return view.status === 'pending' ? { ...view, ...failedFields(event.data) } : view;
      case 'ResultDeleted':
        return null;
      default:
        // Other events of a render stream (webhook deliveries) leave the result as it is.
        return view;
    }
  }, null);
