import type { ByteRangeRequest } from '../../application/ports/file-storage.js';

const SINGLE_RANGE = /^bytes=(\d*)-(\d*)$/;

const position = (digits: string): number | null => {
  const value = Number(digits);
  return digits !== '' && Number.isSafeInteger(value) ? value : null;
};

/**
 * One byte range from a Range header, or null to answer with the whole file. A server may ignore any
 * Range header (RFC 9110 §14.2), so malformed, non-byte and multi-range requests get the whole file
 * rather than a multipart answer few clients ask for (video players ask for one range at a time).
 */
export const parseRangeHeader = (header: string | undefined): ByteRangeRequest | null => {
  const match = header ? SINGLE_RANGE.exec(header.trim()) : null;
  if (!match) return null;
  const start = position(match[1] ?? '');
  const end = position(match[2] ?? '');
  if (start === null) return end === null ? null : { suffix: end };
  if (end === null) return match[2] === '' ? { start } : null;
  return start <= end ? { start, end } : null;
};

/** If-None-Match with weak comparison (RFC 9110 §13.1.2): a list of tags, or `*` for any version. */
export const matchesIfNoneMatch = (header: string, etag: string): boolean => {
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => opaque(tag) === opaque(etag));
};
