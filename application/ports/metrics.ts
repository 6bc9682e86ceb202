/** What a render is, for counting: a still image or PDF from a template, a video, or a captured web page. */
/** `video_segment`: one part of a video split across workers; the join counts as the `video`. */
export type RenderKind = 'image' | 'video' | 'video_segment' | 'capture';

/**
 * How one attempt at producing a file ended: 'done'; 'failed' when the render itself failed (a bad
 * request, a crashed page, a missed deadline); 'unavailable' when the pool refused it for now;
 * 'error' for a fault outside the render (storage, the event store), which Temporal retries.
 */
export type RenderMetricOutcome = 'done' | 'failed' | 'unavailable' | 'error';

export type WebhookAttemptOutcome = 'delivered' | 'failed';

/** How a render begun ahead of its workflow ended (renders-ahead.ts): taken by the workflow, or thrown away. */
export type RenderAheadOutcome = 'taken' | 'unused';

/** Operational counters the use cases report; the adapter decides how they are exported. */
export interface Metrics {
  /** Starts timing one attempt at producing a render; call the returned function once, with how it ended. */
  startRender(labels: { readonly kind: RenderKind; readonly format: string }): (outcome: RenderMetricOutcome) => void;
  webhookAttempt(outcome: WebhookAttemptOutcome): void;
  renderAheadEnded(outcome: RenderAheadOutcome): void;
}
