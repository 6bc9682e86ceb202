import type { CaptureSpec } from '../../domain/renders/capture-events.js';
import type { RenderedFile } from './render-engine.js';

/** Decides whether the service may fetch a URL for a client (scheme, and where its host resolves to). */
export interface UrlGuard {
  /** Resolves when the URL may be fetched; throws DomainError('validation') when it may not. */
  assertUrlAllowed(url: string): Promise<void>;
}

/** Loads someone else's web page in a browser and captures it as an image or a PDF. */
export interface PageCapturer {
  /**
   * `tenant`: the organization the capture is for; its pages are never shared with another. `test`:
   * a test key's capture, drawn with TEST across it.
   */
  capture(spec: CaptureSpec, tenant: string, marks?: { readonly test?: boolean }): Promise<RenderedFile>;
}
