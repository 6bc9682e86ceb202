import { DomainError, UnavailableError } from '../../domain/shared/errors.js';

/**
 * The browser pool cannot take the render now (queue full, no page freed in time, Chromium down).
 * `retryAfterSeconds` is the pool's estimate of when asking again is worth it: the REST edge sends
 * it as Retry-After with the 503, so clients back off instead of piling up.
 */
export class PoolUnavailableError extends UnavailableError {
  constructor(message: string, retryAfterSeconds: number, options: { cause?: unknown } = {}) {
    super(message, retryAfterSeconds);
    this.name = 'PoolUnavailableError';
    if (options.cause !== undefined) this.cause = options.cause;
  }
}

/** The browser serving a render died under it; a retry gets a fresh browser. */
export class BrowserCrashedError extends PoolUnavailableError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, 1, options);
    this.name = 'BrowserCrashedError';
  }
}

/**
 * A render outlived its deadline. Every case seen so far was the page's own doing (an endless
 * script, a paint bomb), and a retry would only burn the same time again: the request's fault.
 */
export class RenderDeadlineError extends DomainError {
  constructor(deadlineMs: number) {
    const message = `The page did not finish rendering within ${deadlineMs} ms: its scripts or styles keep the browser busy`;
    super('validation', message, [message]);
    this.name = 'RenderDeadlineError';
  }
}
