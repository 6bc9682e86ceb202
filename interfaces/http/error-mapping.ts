import { DEFAULT_RETRY_AFTER_SECONDS, DomainError, UnavailableError, type ErrorCode } from '../../domain/shared/errors.js';
import { isUnreachableDependency } from '../../application/shared/unreachable-dependency.js';

export interface ErrorResponse {
  msg: string;
  status: number;
  errors: string[];
}

const STATUS: Record<ErrorCode, number> = {
  validation: 400,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unavailable: 503,
  failed: 500,
};

export const statusOf = (code: ErrorCode): number => STATUS[code];

export const errorBody = (status: number, msg: string, errors: readonly string[] = [msg]): ErrorResponse => ({
  msg,
  status,
  errors: [...errors],
});

/**
 * What a thrown error means to a client: a backing service out of reach is nothing wrong with the
 * request, so it is a 503 with Retry-After (the original stays in the log), not a 500.
 */
export const knownError = (error: unknown): unknown =>
  !(error instanceof DomainError) && isUnreachableDependency(error)
    ? new UnavailableError('Service unavailable', DEFAULT_RETRY_AFTER_SECONDS, [`a service this request needs did not answer; retry after ${DEFAULT_RETRY_AFTER_SECONDS} s`])
    : error;

/** The one mapping from thrown errors to what a client sees; internals of unexpected errors never leak. */
export const toErrorBody = (thrown: unknown): ErrorResponse => {
  const error = knownError(thrown);
  if (error instanceof DomainError) return errorBody(statusOf(error.code), error.message, error.details);
  return errorBody(500, 'Internal server error', ['An unexpected error occurred; it has been logged']);
};
