import type { CaptureRequested } from './capture-events.js';
import type { RenderRequested, StoredFile } from './render-events.js';
import type { WebhookCommand } from './webhook-attempts.js';

export interface RequestRender {
  readonly type: 'RequestRender';
  readonly data: RenderRequested['data'];
}

/** A request answered from the render cache: accepted and done at once, with the file of an earlier render. */
export interface RequestCachedRender {
  readonly type: 'RequestCachedRender';
  readonly data: {
    readonly request: RenderRequested['data'];
    readonly file: StoredFile;
    /** The render whose stored file this one reuses. */
    readonly sourceRequestId: string;
    readonly now: string;
  };
}

export interface CompleteRender {
  readonly type: 'CompleteRender';
  readonly data: StoredFile & {
    readonly requestId: string;
    readonly cached: boolean;
    readonly sourceRequestId: string | null;
    readonly now: string;
  };
}

export interface FailRender {
  readonly type: 'FailRender';
  readonly data: { readonly requestId: string; readonly reason: string; readonly now: string };
}

export interface DeleteResult {
  readonly type: 'DeleteResult';
  readonly data: { readonly requestId: string; readonly orgId: string; readonly now: string };
}

export interface RequestCapture {
  readonly type: 'RequestCapture';
  readonly data: CaptureRequested['data'];
}

export interface RecordRenderProgress {
  readonly type: 'RecordRenderProgress';
  /** With `segment`, `framesDone` counts that segment's frames only. */
  readonly data: { readonly requestId: string; readonly framesDone: number; readonly framesTotal: number; readonly now: string; readonly segment?: number };
}

export type RenderCommand = RequestRender | RequestCachedRender | RequestCapture | CompleteRender | FailRender | DeleteResult | WebhookCommand | RecordRenderProgress;
