import { orgIdOfStream } from '../../domain/accounts/account-events.js';
import type { AssetEvent, FontDeleted, FontUploaded } from '../../domain/accounts/asset-events.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import { FontRow, UploadRow } from '../read-models/entities.js';
import { fold, type DocumentProjection } from './document-projection.js';

const ASSET_EVENT_TYPES: Readonly<Record<AssetEvent['type'], true>> = { FontUploaded: true, FontDeleted: true, UploadStored: true, UploadDeleted: true };

const isAssetEvent = (event: RecordedEvent): event is RecordedEvent<AssetEvent> =>
  Object.hasOwn(ASSET_EVENT_TYPES, event.type) && orgIdOfStream(event.streamName) !== null;

/** The organization is the account stream's: only the account's own decider writes these events. */
const orgOf = (event: RecordedEvent<AssetEvent>): string => orgIdOfStream(event.streamName) ?? '';

export const evolveFontRow = (row: FontRow | null, event: RecordedEvent<AssetEvent>): FontRow | null => {
  if (event.type === 'FontUploaded') {
    const { fontId, family, originalName, weight, style, format, subsets, category, bytes, storageKey, uploadedAt } = event.data;
    return {
      id: fontId,
      orgId: orgOf(event),
      family,
      originalName,
      weight,
      style,
      format,
      subsets: [...subsets],
      category,
      bytes,
      storageKey,
      createdAt: new Date(uploadedAt),
    };
  }
  if (event.type === 'FontDeleted') return null;
  return row;
};

export const evolveUploadRow = (row: UploadRow | null, event: RecordedEvent<AssetEvent>): UploadRow | null => {
  if (event.type === 'UploadStored') {
    const { uploadId, contentType, bytes, width, height, storageKey, storedAt } = event.data;
    return { id: uploadId, orgId: orgOf(event), contentType, bytes, width, height, storageKey, createdAt: new Date(storedAt) };
  }
  if (event.type === 'UploadDeleted') return null;
  return row;
};

/** The events that add a font to an organization's list or take one from it. */
const changesFonts = (event: RecordedEvent<AssetEvent>): event is RecordedEvent<FontUploaded | FontDeleted> =>
  event.type === 'FontUploaded' || event.type === 'FontDeleted';

/** The organization whose list of fonts the event changes, if any: what a cache of those lists evicts. */
export const fontListChangedBy = (event: RecordedEvent): string | null => (isAssetEvent(event) && changesFonts(event) ? orgOf(event) : null);

/** The organizations' uploaded fonts and images, which renders look up and the API lists. */
export const assetsProjection: DocumentProjection<AssetEvent> = {
  name: 'assets',
  canHandle: isAssetEvent,
  folds: [
    fold<AssetEvent, FontRow>({
      entity: FontRow,
      documents: (event) => (changesFonts(event) ? [event.data.fontId] : []),
      evolve: evolveFontRow,
    }),
    fold<AssetEvent, UploadRow>({
      entity: UploadRow,
      documents: (event) => (event.type === 'UploadStored' || event.type === 'UploadDeleted' ? [event.data.uploadId] : []),
      evolve: evolveUploadRow,
    }),
  ],
};
