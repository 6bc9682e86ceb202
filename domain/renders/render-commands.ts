import type { CaptureRequested } from './capture-events.js';
import type { RenderRequested, StoredFile } from './render-events.js';
import type { WebhookCommand } from './webhook-delivery.js';

export interface RequestRender {
  readonly type: 'RequestRender';
  readonly data: RenderRequested['data'];
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
  readonly data: { readonly requestId: string; readonly framesDone: number; readonly framesTotal: number; readonly now: string };
}

export type RenderCommand = RequestRender | RequestCapture | CompleteRender | FailRender | DeleteResult | WebhookCommand | RecordRenderProgress;
