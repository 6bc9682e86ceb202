import type { FontUploaded, UploadStored } from './asset-events.js';

/**
 * The bytes of the organization's rendered files, which share the quota with its assets. They are
 * counted by a projection (renders have streams of their own), so the caller reads them and the
 * decider adds the assets it knows exactly.
 */
interface QuotaInput {
  readonly storedResultBytes: number;
}

export interface UploadFont {
  readonly type: 'UploadFont';
  readonly data: Omit<FontUploaded['data'], 'uploadedAt'> & QuotaInput & { readonly orgId: string; readonly now: string };
}

export interface DeleteFont {
  readonly type: 'DeleteFont';
  readonly data: { readonly orgId: string; readonly fontId: string; readonly now: string };
}

export interface StoreUpload {
  readonly type: 'StoreUpload';
  readonly data: Omit<UploadStored['data'], 'storedAt'> & QuotaInput & { readonly orgId: string; readonly now: string };
}

export interface DeleteUpload {
  readonly type: 'DeleteUpload';
  readonly data: { readonly orgId: string; readonly uploadId: string; readonly now: string };
}

export type AssetCommand = UploadFont | DeleteFont | StoreUpload | DeleteUpload;
