import type { EntityManager } from '@mikro-orm/postgresql';
import { completedFields, failedFields, progressedFields, requestedCaptureResult, requestedResult } from '../../application/results/result-view.js';
import type { RenderEvent } from '../../domain/renders/render-events.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import { ResultRow } from '../read-models/entities.js';
import type { Projection } from './projection.js';
import { webhookAfter } from '../../application/webhooks/webhook-view.js';

const RENDER_EVENT_TYPES = new Set<string>([
  'RenderRequested',
  'CaptureRequested',
  'RenderCompleted',
  'RenderFailed',
  'ResultDeleted',
  'RenderProgressed',
  'WebhookDeliveryFailed',
  'WebhookDelivered',
  'WebhookAbandoned',
]);

/** Render streams may carry events that do not change a result; only these do. */
const isRenderEvent = (event: RecordedEvent): event is RecordedEvent<RenderEvent> =>
  event.streamName.startsWith('render-') && RENDER_EVENT_TYPES.has(event.type);

const applyRenderEvent = async (em: EntityManager, event: RecordedEvent<RenderEvent>) => {
  if (event.type === 'RenderRequested') {
    em.create(ResultRow, { ...requestedResult(event.data), deleted: false, fileDeleted: false });
    return;
  }
  if (event.type === 'CaptureRequested') {
    em.create(ResultRow, { ...requestedCaptureResult(event.data), deleted: false, fileDeleted: false });
    return;
  }
  const row = await em.findOne(ResultRow, { requestId: event.data.requestId });
  if (!row) return;
  switch (event.type) {
    case 'RenderCompleted':
      em.assign(row, completedFields(event.data));
      return;
    case 'RenderFailed':
      em.assign(row, failedFields(event.data));
      return;
    case 'WebhookDeliveryFailed':
    case 'WebhookDelivered':
    case 'WebhookAbandoned':
      row.webhook = webhookAfter(row.webhook ?? null, event);
      return;
    case 'RenderProgressed':
      if (row.status === 'pending') em.assign(row, progressedFields({ framesDone: row.framesDone ?? null }, event.data));
      return;
    case 'ResultDeleted': {
      row.deleted = true;
      if (row.cached || row.storageKey === null) return;
      // Deleting the result that stored the file deletes the file: cache hits that reused it lose it too.
      const sharing = await em.find(ResultRow, { orgId: row.orgId, storageKey: row.storageKey });
      for (const other of sharing) other.fileDeleted = true;
      return;
    }
  }
};

export const resultsProjection: Projection = {
  name: 'results',
  handles: isRenderEvent,
  async apply(em, event) {
    if (isRenderEvent(event)) await applyRenderEvent(em, event);
  },
};
