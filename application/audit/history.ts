import { accountStream } from '../../domain/accounts/account-events.js';
import { ledgerOfStream, type CreditsCharged, type CreditsRefunded } from '../../domain/ledger/ledger-events.js';
import { asRequestedAndCompleted, isRenderEvent, requestIdOfStream, type RenderEvent } from '../../domain/renders/render-events.js';
import { assertNever } from '../../domain/shared/decider.js';
import { eventGuard, type RecordedEvent } from '../../domain/shared/events.js';
import { createBatchRowIndex, type BatchRowRef } from './batch-history.js';

/**
 * The render history of an organization, replayed from the event log alone: one row per render or
 * capture with everything that happened to it. Rows are built in two passes over the same stretch
 * of the log. The first finds the requests that match and the position of each one's last event;
 * the second builds those rows and hands each one out as soon as its last event was applied, so
 * memory holds only the histories still in progress, not the whole export. The first pass also
 * follows the organization's batches, so that the row of a batch row's request names its batch
 * and row; a batch's own history (asked, refused rows, cancelled, ended) is `batchHistory`'s.
 */

export type RequestKind = 'render' | 'screenshot' | 'pdf';

export interface HistoryFilter {
  readonly orgId: string;
  /** Requests made at or after this time. */
  readonly from?: Date;
  /** Requests made at or before this time. */
  readonly to?: Date;
  /** Renders of this template only (captures have no template). */
  readonly templateId?: string;
  /** The rows of this batch only. */
  readonly batchId?: string;
}

export interface StateChange {
  /** requested, progressed, completed, failed, deleted; or the event type of a change this version does not know. */
  readonly state: string;
  readonly at: string;
  readonly detail?: Record<string, unknown>;
}

export interface CreditMovement {
  readonly kind: 'charged' | 'refunded';
  readonly amount: number;
  readonly at: string;
}

export interface WebhookAttempt {
  readonly deliveryId: string;
  readonly url: string;
  readonly attempt: number;
  readonly outcome: 'failed' | 'delivered' | 'abandoned';
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly at: string;
}

/** Built up event by event while its history is replayed, hence not readonly. */
export interface HistoryRow {
  requestId: string;
  kind: RequestKind;
  orgId: string;
  /** Who asked: the API key id from the request event's envelope, or "system". */
  actor: string;
  correlationId: string;
  requestedAt: string;
  /** The batch row the request was made for; null for a request of its own. */
  batch: BatchRowRef | null;
  /** `version` is the template version drawn; null for renders recorded before versions existed. */
  template: { readonly id: string; readonly revision: number; readonly version: number | null; readonly name: string } | null;
  /** The captured page, for screenshots and PDFs. */
  url: string | null;
  format: string;
  /** The merge data of a render. */
  data: Record<string, unknown> | null;
  /** The request exactly as the client sent it. */
  request: Record<string, unknown>;
  /** A cache hit that stored its data by reference names the request whose event holds it; data and request show it. */
  dataFrom: string | null;
  status: 'pending' | 'done' | 'failed';
  states: StateChange[];
  failureReason: string | null;
  file: { readonly storageKey: string; readonly bytes: number; readonly contentType: string; readonly cached: boolean; readonly sourceRequestId: string | null } | null;
  credits: { charged: number; refunded: number; movements: CreditMovement[] };
  webhooks: WebhookAttempt[];
  deletedAt: string | null;
  /** Global log position of the request. */
  position: number;
}

const requestIdOf = (event: RecordedEvent): string | null => requestIdOfStream(event.streamName);

const isRequestEvent = (event: RecordedEvent<RenderEvent>) =>
  event.type === 'RenderRequested' || event.type === 'CaptureRequested' || event.type === 'RenderServedFromCache';

const isCreditMovement = eventGuard<CreditsCharged | CreditsRefunded>({ CreditsCharged: true, CreditsRefunded: true });

/**
 * A charge or refund of one request, found in one of the organization's ledger streams (one per
 * billing period), or in its account stream, where logs written before ledgers had streams of their
 * own hold them.
 */
const creditRequestId = (event: RecordedEvent, orgId: string): string | null => {
  if (!isCreditMovement(event)) return null;
  return event.streamName === accountStream(orgId) || ledgerOfStream(event.streamName)?.orgId === orgId ? event.data.requestId : null;
};

const matches = (event: RecordedEvent<RenderEvent>, filter: HistoryFilter): boolean => {
  if (event.type === 'RenderServedFromCache') return matches(asRequestedAndCompleted(event)[0], filter);
  if (event.type !== 'RenderRequested' && event.type !== 'CaptureRequested') return false;
  if ((event.data.orgId ?? event.metadata.orgId) !== filter.orgId) return false;
  const requestedAt = Date.parse(event.data.requestedAt);
  if (filter.from && requestedAt < filter.from.getTime()) return false;
  if (filter.to && requestedAt > filter.to.getTime()) return false;
  if (filter.templateId !== undefined) return event.type === 'RenderRequested' && event.data.spec.templateId === filter.templateId;
  return true;
};

export interface RequestSpan {
  /** Position of the request event. */
  readonly first: number;
  /** Position of the last event that belongs to its history. */
  last: number;
  /** The batch row the request was made for, known from the batch's request earlier in the log. */
  readonly batch: BatchRowRef | null;
}

/** First pass: the matching requests in request order, each with the span of the log its history covers. */
export const createRequestScan = (filter: HistoryFilter) => {
  const spans = new Map<string, RequestSpan>();
  const batches = createBatchRowIndex();
  return {
    apply(event: RecordedEvent): void {
      batches.apply(event);
      const requestId = requestIdOf(event) ?? creditRequestId(event, filter.orgId);
      if (requestId === null) return;
      const span = spans.get(requestId);
      if (span) span.last = event.position;
      else if (requestIdOf(event) !== null && isRenderEvent(event) && matches(event, filter)) {
        const batch = batches.rowOf(event);
        if (filter.batchId !== undefined && batch?.id !== filter.batchId) return;
        spans.set(requestId, { first: event.position, last: event.position, batch });
      }
    },
    spans: (): ReadonlyMap<string, RequestSpan> => spans,
  };
};

const newRow = (event: RecordedEvent<RenderEvent>, batch: BatchRowRef | null): HistoryRow | null => {
  if (event.type === 'RenderServedFromCache') return newRow(asRequestedAndCompleted(event)[0], batch);
  const common = {
    actor: event.metadata.actor,
    correlationId: event.metadata.correlationId,
    batch,
    status: 'pending' as const,
    failureReason: null,
    file: null,
    credits: { charged: 0, refunded: 0, movements: [] },
    webhooks: [],
    deletedAt: null,
    position: event.position,
  };
  if (event.type === 'RenderRequested') {
    const { data } = event;
    return {
      ...common,
      requestId: data.requestId,
      kind: 'render',
      orgId: data.orgId,
      requestedAt: data.requestedAt,
      template: { id: data.spec.templateId, revision: data.spec.templateRevision, version: data.spec.templateVersion ?? null, name: data.spec.templateName },
      url: null,
      format: data.spec.format,
      data: data.spec.data,
      request: data.request,
      dataFrom: data.dataFrom,
      states: [{ state: 'requested', at: data.requestedAt }],
    };
  }
  if (event.type === 'CaptureRequested') {
    const { data } = event;
    return {
      ...common,
      requestId: data.requestId,
      kind: data.capture.kind,
      orgId: data.orgId,
      requestedAt: data.requestedAt,
      template: null,
      url: data.capture.url,
      format: data.capture.kind === 'pdf' ? 'pdf' : (data.capture.format ?? 'png'),
      data: null,
      request: data.request,
      dataFrom: null,
      states: [{ state: 'requested', at: data.requestedAt }],
    };
  }
  return null;
};

const applyToRow = (row: HistoryRow, event: RecordedEvent<RenderEvent>): void => {
  switch (event.type) {
    case 'RenderRequested':
    case 'CaptureRequested':
      return;
    // Its request made the row; its completion is what is left to apply.
    case 'RenderServedFromCache':
      return applyToRow(row, asRequestedAndCompleted(event)[1]);
    case 'RenderProgressed':
      row.states.push({ state: 'progressed', at: event.data.at, detail: { framesDone: event.data.framesDone, framesTotal: event.data.framesTotal } });
      return;
    case 'RenderCompleted': {
      const { data } = event;
      row.states.push({ state: 'completed', at: data.completedAt });
      if (row.status === 'pending') {
        row.status = 'done';
        row.file = { storageKey: data.storageKey, bytes: data.bytes, contentType: data.contentType, cached: data.cached, sourceRequestId: data.sourceRequestId };
      }
      return;
    }
    case 'RenderFailed':
      row.states.push({ state: 'failed', at: event.data.failedAt, detail: { reason: event.data.reason } });
      if (row.status === 'pending') {
        row.status = 'failed';
        row.failureReason = event.data.reason;
      }
      return;
    case 'ResultDeleted':
      row.states.push({ state: 'deleted', at: event.data.deletedAt });
      row.deletedAt = event.data.deletedAt;
      return;
    case 'WebhookDeliveryFailed': {
      const { deliveryId, url, attempt, statusCode, error, failedAt } = event.data;
      row.webhooks.push({ deliveryId, url, attempt, outcome: 'failed', statusCode, error, at: failedAt });
      return;
    }
    case 'WebhookDelivered': {
      const { deliveryId, url, attempts, statusCode, deliveredAt } = event.data;
      row.webhooks.push({ deliveryId, url, attempt: attempts, outcome: 'delivered', statusCode, error: null, at: deliveredAt });
      return;
    }
    case 'WebhookAbandoned': {
      const { deliveryId, url, attempts, reason, abandonedAt } = event.data;
      row.webhooks.push({ deliveryId, url, attempt: attempts, outcome: 'abandoned', statusCode: null, error: reason, at: abandonedAt });
      return;
    }
    default:
      assertNever(event);
  }
};

/** A kind of change newer than this code: shown by its type rather than dropped from the record. */
const applyUnknownToRow = (row: HistoryRow, event: RecordedEvent): void => {
  row.states.push({ state: event.type, at: event.metadata.occurredAt, detail: { ...event.data } });
};

const applyCredit = (row: HistoryRow, event: RecordedEvent<CreditsCharged | CreditsRefunded>): void => {
  if (event.type === 'CreditsCharged') {
    row.credits.charged += event.data.amount;
    row.credits.movements.push({ kind: 'charged', amount: event.data.amount, at: event.data.chargedAt });
  } else {
    row.credits.refunded += event.data.amount;
    row.credits.movements.push({ kind: 'refunded', amount: event.data.amount, at: event.data.refundedAt });
  }
};

/** Second pass: builds the rows of `spans` and returns each one from `apply` once its last event is in. */
export const createRowBuilder = (orgId: string, spans: ReadonlyMap<string, RequestSpan>) => {
  const open = new Map<string, HistoryRow>();
  return {
    apply(event: RecordedEvent): HistoryRow | null {
      const renderRequestId = requestIdOf(event);
      const requestId = renderRequestId ?? creditRequestId(event, orgId);
      if (requestId === null) return null;
      const span = spans.get(requestId);
      if (!span || event.position < span.first || event.position > span.last) return null;
      if (renderRequestId !== null && isRenderEvent(event) && isRequestEvent(event)) {
        const row = newRow(event, span.batch);
        if (row) open.set(requestId, row);
      }
      const row = open.get(requestId);
      if (!row) return null;
      if (renderRequestId === null) {
        if (isCreditMovement(event)) applyCredit(row, event);
      } else if (isRenderEvent(event)) applyToRow(row, event);
      else applyUnknownToRow(row, event);
      if (event.position !== span.last) return null;
      open.delete(requestId);
      return row;
    },
  };
};
