/** Where rendered files live. Keys are opaque paths like `<orgId>/<requestId>/<fileName>`. */
export interface FileStorage {
  /** Idempotent: writing the same key again replaces it atomically (a retried activity stores once). */
  put(key: string, content: Buffer, contentType: string): Promise<void>;
  /** null when absent. */
  get(key: string): Promise<Buffer | null>;
  delete(key: string): Promise<void>;
}

/** Builds the public href of a result and checks signed links. */
export interface ResultLinks {
  /** `expiresAt` (epoch seconds) makes the link signed and time-limited. */
  href(requestId: string, fileName: string, expiresAt: number | null): string;
  /** True when the link carries no expiry and needs none, or a valid signature that has not expired yet. */
  verify(requestId: string, fileName: string, query: { expires?: string; signature?: string }, nowSeconds: number, required: boolean): boolean;
}
