import { eventGuard, type DomainEvent } from '../shared/events.js';
import type { TextFits } from './text-fit.js';
import type { CaptureRequested } from './capture-events.js';
import type { PdfStandard } from './pdf-standards.js';
import type { Editor, OutputFormat } from '../templates/template-settings.js';

const RENDER_STREAM_PREFIX = 'render-';

export const renderStream = (requestId: string) => `${RENDER_STREAM_PREFIX}${requestId}`;

/** The request a render stream belongs to; null for any other stream. */
export const requestIdOfStream = (streamName: string): string | null =>
  streamName.startsWith(RENDER_STREAM_PREFIX) ? streamName.slice(RENDER_STREAM_PREFIX.length) : null;

/** Everything a worker needs to produce the file, fixed when the request is accepted. */
export interface RenderSpec {
  readonly templateId: string;
  /** Stream revision of the template used: the render is reproducible after later edits. */
  readonly templateRevision: number;
  /** The template version that revision is; absent in requests made before templates had versions. */
  readonly templateVersion?: number;
  readonly templateName: string;
  readonly editor: Editor;
  readonly format: OutputFormat;
  readonly width: number;
  readonly height: number;
  readonly crop: { readonly width: number; readonly height: number } | null;
  readonly quality: number;
  readonly scaleFactor: number;
  readonly data: Record<string, unknown>;
  readonly waitTime: number;
  readonly fileName: string;
  /** Seconds the href stays valid; null for a link that does not expire. */
  readonly expires: number | null;
  /** Video only. */
  readonly duration: number | null;
  readonly fps: number | null;
  /** PDF only, when the client asked for it; absent otherwise (and in requests made before it existed). */
  readonly pdfStandard?: PdfStandard;
}

export type RenderRequested = DomainEvent<
  'RenderRequested',
  {
    requestId: string;
    orgId: string;
    /** The request exactly as the client sent it, for webhooks, v1 listings and audits. */
    request: Record<string, unknown>;
    spec: RenderSpec;
    /** Identifies identical requests; null when the client disabled the cache. */
    cacheKey: string | null;
    credits: number;
    batchName: string | null;
    metadata: Record<string, unknown> | null;
    webhookUrl: string | null;
    requestedAt: string;
    /**
     * A cache hit whose data is large does not store it again: `spec.data` is empty, `request` has
     * no `data`, and this names the request that stored it. Null when the data is stored here.
     */
    dataFrom: string | null;
    /** Made with a test key: free, watermarked, kept a day (test-mode.ts). Absent otherwise. */
    test?: true;
  }
>;

export interface StoredFile {
  readonly storageKey: string;
  readonly fileName: string;
  readonly contentType: string;
  readonly bytes: number;
  readonly width: number;
  readonly height: number;
  /** What fitting did to the text of elements that fit their boxes (text-fit.ts); absent when none did. */
  readonly fit?: TextFits;
}

export type RenderCompleted = DomainEvent<
  'RenderCompleted',
  StoredFile & {
    requestId: string;
    /** True when the file came from the render cache; `sourceRequestId` names the render that made it. */
    cached: boolean;
    sourceRequestId: string | null;
    completedAt: string;
  }
>;

/**
 * A request answered from the render cache, in one event: requested and done at once, free
 * (`credits` 0), with the file the render `sourceRequestId` stored. Cache hits are the most frequent
 * event of all, so each is one row to append, validate, chain and project instead of two. Logs
 * written before it hold the same fact as a RenderRequested followed by a cached RenderCompleted,
 * and folds read this event as those two (`asRequestedAndCompleted`), so both forms fold alike.
 */
export type RenderServedFromCache = DomainEvent<
  'RenderServedFromCache',
  RenderRequested['data'] & { file: StoredFile; sourceRequestId: string; completedAt: string }
>;

/** A cache hit's one event as the two it stands for, with the same envelope (metadata, position). */
export const asRequestedAndCompleted = <E extends RenderServedFromCache>(
  event: E,
): [Omit<E, 'type' | 'data'> & RenderRequested, Omit<E, 'type' | 'data'> & RenderCompleted] => {
  const { file, sourceRequestId, completedAt, ...requested } = event.data;
  return [
    { ...event, type: 'RenderRequested', data: requested },
    { ...event, type: 'RenderCompleted', data: { ...file, requestId: requested.requestId, cached: true, sourceRequestId, completedAt } },
  ];
};

export type RenderFailed = DomainEvent<'RenderFailed', { requestId: string; reason: string; failedAt: string }>;

export type ResultDeleted = DomainEvent<'ResultDeleted', { requestId: string; deletedAt: string }>;

/**
 * One attempt to POST the outcome to the request's webhookUrl failed: the receiver answered
 * `statusCode` (not 2xx), or null when there was no answer (refused, timed out, blocked address).
 */
export type WebhookDeliveryFailed = DomainEvent<
  'WebhookDeliveryFailed',
  { requestId: string; deliveryId: string; url: string; attempt: number; statusCode: number | null; error: string; failedAt: string }
>;

/** The receiver accepted the delivery (2xx) on attempt number `attempts`. */
export type WebhookDelivered = DomainEvent<
  'WebhookDelivered',
  { requestId: string; deliveryId: string; url: string; attempts: number; statusCode: number; deliveredAt: string }
>;

/** Retries ran out (the retry window closed): no more attempts are made for this delivery. */
export type WebhookAbandoned = DomainEvent<
  'WebhookAbandoned',
  { requestId: string; deliveryId: string; url: string; attempts: number; reason: string; abandonedAt: string }
>;

/**
 * A video render has captured `framesDone` of its `framesTotal` frames. Recorded every tenth of the
 * way, never backwards: a retried attempt that starts again from frame 0 records nothing until it
 * passes what an earlier attempt reached. A video rendered in segments records each segment's own
 * count in `segment`; `framesDone` is then the sum over its segments.
 */
export type RenderProgressed = DomainEvent<
  'RenderProgressed',
  { requestId: string; framesDone: number; framesTotal: number; at: string; segment?: SegmentProgress }
>;

/** Frames one segment of a video has captured, the most any of its attempts reached. */
export interface SegmentProgress {
  readonly index: number;
  readonly framesDone: number;
}

export type WebhookEvent = WebhookDeliveryFailed | WebhookDelivered | WebhookAbandoned;

export type RenderEvent = RenderRequested | CaptureRequested | RenderServedFromCache | RenderCompleted | RenderFailed | ResultDeleted | WebhookEvent | RenderProgressed;

/** Events of render streams (renders and captures share them). */
export const isRenderEvent = eventGuard<RenderEvent>({
  RenderRequested: true,
  CaptureRequested: true,
  RenderServedFromCache: true,
  RenderCompleted: true,
  RenderFailed: true,
  ResultDeleted: true,
  WebhookDeliveryFailed: true,
  WebhookDelivered: true,
  WebhookAbandoned: true,
  RenderProgressed: true,
});
