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

/**
 * Lists and sections iterate render data (`{{#items}}...{{/items}}`): every array and every level of
 * nesting is a loop the merge runs, so both are bounded besides the bytes.
 */
export const JSON_SHAPE_LIMITS = { arrayLength: 10_000, depth: 16 } as const;

/** The first way the value's shape exceeds the limits, naming where (`data.items`), or null. */
const shapeProblem = (value: unknown, where: string, depth: number): string | null => {
  if (typeof value !== 'object' || value === null) return null;
  if (depth > JSON_SHAPE_LIMITS.depth) return `${where}: nested more than ${JSON_SHAPE_LIMITS.depth} levels deep`;
  if (Array.isArray(value)) {
    if (value.length > JSON_SHAPE_LIMITS.arrayLength) return `${where}: a list of ${value.length} items; at most ${JSON_SHAPE_LIMITS.arrayLength}`;
    for (let index = 0; index < value.length; index++) {
      const problem = shapeProblem(value[index], `${where}[${index}]`, depth + 1);
      if (problem) return problem;
    }
    return null;
  }
  for (const [key, inner] of Object.entries(value)) {
    const problem = shapeProblem(inner, `${where}.${key}`, depth + 1);
    if (problem) return problem;
  }
  return null;
};

/** Refuses any of the fields over its limits (bytes, list length, depth), one line each naming the field. */
export const assertJsonFieldSizes = (fields: Partial<Record<JsonField, unknown>>): void => {
  const problems = Object.entries(fields).flatMap(([field, value]) => {
    if (value === undefined || value === null) return [];
    const bytes = jsonBytes(value);
    const limit = JSON_FIELD_LIMITS[field as JsonField];
    if (bytes > limit) return [`${field}: ${bytes} bytes of JSON; at most ${limit}`];
    const shape = shapeProblem(value, field, 0);
    return shape ? [shape] : [];
  });
  if (problems.length > 0) throw validationError('Request fields are too large', problems);
};
