import type { z } from 'zod';
import { validationError } from '../../domain/shared/errors.js';

/** Validates one part of a request; every problem becomes one line of the 400's `errors`. */
export const parseInput = <Schema extends z.ZodType>(schema: Schema, value: unknown, location: string): z.output<Schema> => {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => {
    const path = [location, ...issue.path.map(String)].join('.');
    return `${path}: ${issue.message}`;
  });
  throw validationError(`Invalid ${location}`, details);
};
