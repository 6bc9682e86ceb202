import { DomainError, notFound } from '../shared/errors.js';
import type { DeleteFont, DeleteUpload, StoreUpload, UploadFont } from './asset-commands.js';
import type { FontDeleted, FontUploaded, UploadDeleted, UploadStored } from './asset-events.js';
import { assetBytes, type Account, type AssetState, type OpenAccountState } from './account.js';

const requireOpen = (state: Account): OpenAccountState => {
  if (state.status !== 'open') throw notFound('Organization');
  return state;
};

/** An upload that would take the organization past its plan's upload storage is refused before it counts. */
const assertRoomFor = (account: OpenAccountState, bytes: number, storedResultBytes: number): void => {
  const used = storedResultBytes + assetBytes(account);
  const total = account.plan.uploadsBytes;
  if (used + bytes <= total) return;
  throw new DomainError('payment_required', 'Upload storage is full', [
    `the file is ${bytes} bytes but only ${Math.max(0, total - used)} of the plan's ${total} bytes of upload storage (uploads.total) are free; delete uploads or results to make room`,
  ]);
};

/** An id already recorded is the same upload retried: nothing new happened. */
const alreadyRecorded = (account: OpenAccountState, id: string, kind: AssetState['kind']): boolean => account.assets.get(id)?.kind === kind;

export const decideUploadFont = ({ data }: UploadFont, state: Account): FontUploaded[] => {
  const account = requireOpen(state);
  if (alreadyRecorded(account, data.fontId, 'font')) return [];
  assertRoomFor(account, data.bytes, data.storedResultBytes);
  const { orgId: _orgId, now, storedResultBytes: _stored, ...font } = data;
  return [{ type: 'FontUploaded', data: { ...font, uploadedAt: now } }];
};

export const decideStoreUpload = ({ data }: StoreUpload, state: Account): UploadStored[] => {
  const account = requireOpen(state);
  if (alreadyRecorded(account, data.uploadId, 'image')) return [];
  assertRoomFor(account, data.bytes, data.storedResultBytes);
  const { orgId: _orgId, now, storedResultBytes: _stored, ...upload } = data;
  return [{ type: 'UploadStored', data: { ...upload, storedAt: now } }];
};

export const decideDeleteFont = ({ data }: DeleteFont, state: Account): FontDeleted[] => {
  const font = requireOpen(state).assets.get(data.fontId);
  if (font?.kind !== 'font') throw notFound('Font');
  return [{ type: 'FontDeleted', data: { fontId: data.fontId, bytes: font.bytes, deletedAt: data.now } }];
};

export const decideDeleteUpload = ({ data }: DeleteUpload, state: Account): UploadDeleted[] => {
  const upload = requireOpen(state).assets.get(data.uploadId);
  if (upload?.kind !== 'image') throw notFound('Upload');
  return [{ type: 'UploadDeleted', data: { uploadId: data.uploadId, bytes: upload.bytes, deletedAt: data.now } }];
};
