import type { AccountEvent } from '../../domain/accounts/account-events.js';
import type { RecordedEvent } from '../../domain/shared/events.js';

/** One uploaded font or image, as the organization's account stream tells it: who stored it, when, and its deletion. */
export interface UploadHistoryRow {
  readonly identifier: string;
  readonly kind: 'font' | 'image';
  /** The API key id that uploaded it, or "system". */
  readonly uploadedBy: string;
  readonly uploadedAt: string;
  readonly bytes: number;
  readonly storageKey: string;
  /** Fonts: the family templates name, and the file's weight and style. */
  readonly font: { readonly family: string; readonly originalName: string; readonly weight: number; readonly style: string; readonly format: string } | null;
  /** Images: the sniffed type and size. */
  readonly image: { readonly contentType: string; readonly width: number; readonly height: number } | null;
  deletedAt: string | null;
  deletedBy: string | null;
  /** Global log position of the upload. */
  readonly position: number;
}

/** The uploads of an account stream's events in upload order, deletions folded into their rows. */
export const uploadHistory = (events: readonly RecordedEvent<AccountEvent>[]): UploadHistoryRow[] => {
  const rows = new Map<string, UploadHistoryRow>();
  const deleted = (id: string, event: RecordedEvent<AccountEvent>, at: string) => {
    const row = rows.get(id);
    if (!row) return;
    row.deletedAt = at;
    row.deletedBy = event.metadata.actor;
  };
  for (const event of events) {
    const common = { uploadedBy: event.metadata.actor, deletedAt: null, deletedBy: null, position: event.position };
    switch (event.type) {
      case 'FontUploaded': {
        const { fontId, family, originalName, weight, style, format, bytes, storageKey, uploadedAt } = event.data;
        rows.set(fontId, { ...common, identifier: fontId, kind: 'font', uploadedAt, bytes, storageKey, font: { family, originalName, weight, style, format }, image: null });
        break;
      }
      case 'UploadStored': {
        const { uploadId, contentType, width, height, bytes, storageKey, storedAt } = event.data;
        rows.set(uploadId, { ...common, identifier: uploadId, kind: 'image', uploadedAt: storedAt, bytes, storageKey, font: null, image: { contentType, width, height } });
        break;
      }
      case 'FontDeleted':
        deleted(event.data.fontId, event, event.data.deletedAt);
        break;
      case 'UploadDeleted':
        deleted(event.data.uploadId, event, event.data.deletedAt);
        break;
      default:
        break;
    }
  }
  return [...rows.values()];
};
