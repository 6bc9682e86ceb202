/** How long and how often a webhook is retried; the worker's configuration, read by the workflow once per delivery. */
export interface WebhookRetryPolicy {
  readonly initialIntervalMs: number;
  readonly maximumIntervalMs: number;
  /** The whole window, from the first attempt being scheduled to giving up. */
  readonly retryForMs: number;
  /** 0: unlimited within the window. */
  readonly maximumAttempts: number;
  /** One attempt: the receiver's timeout plus the bookkeeping around it. */
  readonly attemptTimeoutMs: number;
}

/** Reading the request's stream and recording the attempt, around the receiver's own time. */
const ATTEMPT_BOOKKEEPING_MS = 20_000;

/** Exponential backoff (x2) from the first interval up to the longest, for the window. */
export const webhookRetryPolicy = (settings: {
  readonly receiverTimeoutMs: number;
  readonly initialIntervalMs: number;
  readonly maximumIntervalMs: number;
  readonly retryForMs: number;
  readonly maximumAttempts: number;
}): WebhookRetryPolicy => ({
  initialIntervalMs: settings.initialIntervalMs,
  maximumIntervalMs: settings.maximumIntervalMs,
  retryForMs: settings.retryForMs,
  maximumAttempts: settings.maximumAttempts,
  attemptTimeoutMs: settings.receiverTimeoutMs + ATTEMPT_BOOKKEEPING_MS,
});
