import { validationError } from './errors.js';

/**
 * Free-form JSON that a request stores in its events (render `data`, `metadata`, template
 * `sampleData`) is kept for ever in the immutable log and copied into read models and webhooks, so
 * each field has a size of its own, far below the body limit. Sizes are UTF-8 bytes of the JSON text.
 */
export const JSON_FIELD_LIMITS = {
  data: 512 * 1024,
  sampleData: 512 * 1024,
  metadata: 16 * 1024,
} as const;

export type JsonField = keyof typeof JSON_FIELD_LIMITS;

const ASCII_ONLY = /^[\x00-\x7f]*$/;

/** UTF-8 bytes of a text, as TextEncoder would write it (a lone surrogate as U+FFFD), counted without writing it. */
const utf8Bytes = (text: string): number => {
  // Most data is ASCII, a byte per character: one native scan instead of a loop in JavaScript.
  if (ASCII_ONLY.test(text)) return text.length;
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
};

/** Counted rather than encoded: every request sizes its data, and a cache hit sizes it twice. */
export const jsonBytes = (value: unknown): number => utf8Bytes(JSON.stringify(value) ?? '');

/** Refuses any of the fields over its limit, one line each naming the field, its size and the limit. */
export const assertJsonFieldSizes = (fields: Partial<Record<JsonField, unknown>>): void => {
  const problems = Object.entries(fields).flatMap(([field, value]) => {
    if (value === undefined || value === null) return [];
    const bytes = jsonBytes(value);
    const limit = JSON_FIELD_LIMITS[field as JsonField];
    return bytes > limit ? [`${field}: ${bytes} bytes of JSON; at most ${limit}`] : [];
  });
  if (problems.length > 0) throw validationError('Request fields are too large', problems);
};
