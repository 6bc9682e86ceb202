import { expect } from 'vitest';
import { DomainError, type ErrorCode } from '../../domain/shared/errors.js';

/** Awaits a promise that must reject with a DomainError of `code`, and hands the error back for more checks. */
export const expectDomainError = async (promise: Promise<unknown>, code: ErrorCode): Promise<DomainError> => {
  const error = await promise.then(
    (value: unknown) => expect.fail(`expected a ${code} error, got ${JSON.stringify(value)}`),
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).code, (error as Error).message).toBe(code);
  return error as DomainError;
};
