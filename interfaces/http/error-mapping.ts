import { DomainError, type ErrorCode } from '../../domain/shared/errors.js';

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

/** The one mapping from thrown errors to what a client sees; internals of unexpected errors never leak. */
export const toErrorBody = (error: unknown): ErrorResponse => {
  if (error instanceof DomainError) return errorBody(statusOf(error.code), error.message, error.details);
  return errorBody(500, 'Internal server error', ['An unexpected error occurred; it has been logged']);
};
