import path from 'node:path';
import { validationError } from '../../domain/shared/errors.js';

/**
 * The segments of a storage key. Keys come from file names clients choose, so every adapter refuses
 * the same ones: nothing that could climb out of a folder on disk, and keys stay portable between
 * adapters (a result stored under one can be copied to the other).
 */
export const keySegments = (key: string): string[] => {
  const segments = key.split('/');
  if (key === '' || path.isAbsolute(key) || key.includes('\\') || key.includes('\0') || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw validationError(`Invalid storage key: ${key}`);
  }
  return segments;
};
