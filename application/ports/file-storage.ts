import type { Readable } from 'node:stream';

/** What a client asked for in a Range header, before the file's size is known (RFC 9110 §14.1.2). */
export type ByteRangeRequest =
  /** `bytes=start-` or `bytes=start-end` (end inclusive; clamped to the file's last byte). */
  | { readonly start: number; readonly end?: number }
  /** `bytes=-length`: the last `length` bytes. */
  | { readonly suffix: number };

/** Inclusive byte positions within a file. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

export interface StoredFileInfo {
  /** Size of the whole file in bytes. */
  readonly size: number;
  /** A strong entity tag, quoted as it goes into an ETag header; changes whenever the file is replaced. */
  readonly etag: string;
}

export type OpenedFile =
  | (StoredFileInfo & {
      /** The requested bytes, read as they are consumed; destroy it when giving up early. */
      readonly stream: Readable;
      /** The bytes `stream` carries; null when it carries the whole file. */
      readonly range: ByteRange | null;
    })
  /** The file exists but the range starts past its end (HTTP 416). */
  | (StoredFileInfo & { readonly unsatisfiable: true });

/** Where rendered files live. Keys are opaque paths like `<orgId>/<requestId>/<fileName>`. */
export interface FileStorage {
  /**
   * Idempotent: writing the same key again replaces it atomically (a retried activity stores once).
   * A stream is written as it is read, so a large file never has to be held in memory whole.
   */
  put(key: string, content: Buffer | Readable, contentType: string): Promise<void>;
  /** The whole file in memory, for callers that need it so (a render answered inline); null when absent. */
  get(key: string): Promise<Buffer | null>;
  /** Size and entity tag without reading the content; null when absent. */
  stat(key: string): Promise<StoredFileInfo | null>;
  /** The file, or the requested range of it, as a stream; null when absent. */
  open(key: string, range?: ByteRangeRequest): Promise<OpenedFile | null>;
  /** Succeeds when the key is already absent. */
  delete(key: string): Promise<void>;
}

/** Resolves a requested range against the file's size; null when it cannot be satisfied (starts past the end). */
export const resolveByteRange = (request: ByteRangeRequest, size: number): ByteRange | null => {
  if ('suffix' in request) {
    if (request.suffix === 0 || size === 0) return null;
    return { start: Math.max(0, size - request.suffix), end: size - 1 };
  }
  if (request.start >= size) return null;
  return { start: request.start, end: Math.min(request.end ?? size - 1, size - 1) };
};

/** Builds the public href of a result and checks signed links. */
export interface ResultLinks {
  /** `expiresAt` (epoch seconds) makes the link signed and time-limited. */
  href(requestId: string, fileName: string, expiresAt: number | null): string;
  /** True when the link carries no expiry and needs none, or a valid signature that has not expired yet. */
  verify(requestId: string, fileName: string, query: { expires?: string; signature?: string }, nowSeconds: number, required: boolean): boolean;
}
