import type { DomainEvent } from '../shared/events.js';
import type { Editor, OutputFormat } from '../templates/template-settings.js';

export const renderStream = (requestId: string) => `render-${requestId}`;

/** Everything a worker needs to produce the file, fixed when the request is accepted. */
export interface RenderSpec {
  readonly templateId: string;
  /** Stream revision of the template used: the render is reproducible after later edits. */
  readonly templateRevision: number;
  readonly templateName: string;
  readonly editor: Editor;
  readonly format: OutputFormat;
  readonly width: number;
  readonly height: number;
  readonly crop: { readonly width: number; readonly height: number } | null;
  readonly quality: number;
  readonly scaleFactor: number;
  readonly data: Record<string, unknown>;
  readonly waitTime: number;
  readonly fileName: string;
  /** Seconds the href stays valid; null for a link that does not expire. */
  readonly expires: number | null;
  /** Video only. */
  readonly duration: number | null;
  readonly fps: number | null;
}

export type RenderRequested = DomainEvent<
  'RenderRequested',
  {
    requestId: string;
    orgId: string;
    /** The request exactly as the client sent it, for webhooks, v1 listings and audits. */
    request: Record<string, unknown>;
    spec: RenderSpec;
    /** Identifies identical requests; null when the client disabled the cache. */
    cacheKey: string | null;
    credits: number;
    batchName: string | null;
    metadata: Record<string, unknown> | null;
    webhookUrl: string | null;
    requestedAt: string;
  }
>;

export interface StoredFile {
  readonly storageKey: string;
  readonly fileName: string;
  readonly contentType: string;
  readonly bytes: number;
  readonly width: number;
  readonly height: number;
}

export type RenderCompleted = DomainEvent<
  'RenderCompleted',
  StoredFile & {
    requestId: string;
    /** True when the file came from the render cache; `sourceRequestId` names the render that made it. */
    cached: boolean;
    sourceRequestId: string | null;
    completedAt: string;
  }
>;

export type RenderFailed = DomainEvent<'RenderFailed', { requestId: string; reason: string; failedAt: string }>;

export type ResultDeleted = DomainEvent<'ResultDeleted', { requestId: string; deletedAt: string }>;

export type RenderEvent = RenderRequested | RenderCompleted | RenderFailed | ResultDeleted;
