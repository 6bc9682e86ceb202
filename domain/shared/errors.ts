/**
 * The one error taxonomy of the service. Every layer throws these; the edges (REST middleware,
 * tRPC formatter) map `code` to a status in one place.
 */
export type ErrorCode =
  | 'validation'
  | 'payment_required'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unavailable'
  /** The work was accepted but could not be done (a render that crashed or timed out). */
  | 'failed';

/**
 * Why a request's work failed: the one failure taxonomy between the workers and the API, each a
 * domain error code the edges already map to a status. `validation`: the request's fault, seen only
 * once the work ran (a capture redirected to a private address, a template that cannot render), 400;
 * `payment_required`: no credits left at charge time, 402; `unavailable`: no worker had room in
 * time, 503 with the pool's estimate of when to ask again; `failed`: the work could not be done
 * (a browser that crashed, a page that ran out of time), 500.
 */
export type FailureCode = Extract<ErrorCode, 'validation' | 'payment_required' | 'unavailable' | 'failed'>;

const REPORTED_AS_THEMSELVES: ReadonlySet<string> = new Set<FailureCode>(['validation', 'payment_required', 'unavailable']);

/** A refusal keeps its code where the taxonomy names it; anything else (a crash, an account gone) is work that failed. */
export const failureCodeOf = (code: string | undefined): FailureCode =>
  code !== undefined && REPORTED_AS_THEMSELVES.has(code) ? (code as FailureCode) : 'failed';

export class DomainError extends Error {
  readonly code: ErrorCode;
  /** One human-readable line per problem, shown to the caller as `errors`. */
  readonly details: readonly string[];

  constructor(code: ErrorCode, message: string, details: readonly string[] = []) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
  }
}

/** Retry-After when whoever refused has no estimate of its own: long enough for a restart or a queue to drain. */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

/**
 * The work cannot be taken now; `retryAfterSeconds` is when asking again is worth it, estimated by
 * whoever refused (the browser pool from the work ahead of it), and sent to clients as Retry-After.
 */
export class UnavailableError extends DomainError {
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number, details: readonly string[] = [message]) {
    super('unavailable', message, details);
    this.name = 'UnavailableError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Seconds a client should wait before retrying work refused with `error`. */
export const retryAfterSecondsOf = (error: DomainError): number =>
  error instanceof UnavailableError ? error.retryAfterSeconds : DEFAULT_RETRY_AFTER_SECONDS;

export const validationError = (message: string, details: readonly string[] = []) =>
  new DomainError('validation', message, details.length > 0 ? details : [message]);

export const notFound = (what: string) => new DomainError('not_found', `${what} not found`, [`${what} not found`]);

export const conflict = (message: string) => new DomainError('conflict', message, [message]);
