import type { DomainEvent } from '../shared/events.js';

/*
 * An organization's own files, which its templates use: fonts and images. They live on the
 * account stream because they share the account's upload storage quota with its rendered files,
 * so a quota check and the upload it admits are decided against one revision.
 */

export const FONT_FORMATS = ['ttf', 'otf', 'woff', 'woff2'] as const;
export type FontFormat = (typeof FONT_FORMATS)[number];

export const FONT_STYLES = ['normal', 'italic'] as const;
export type FontStyle = (typeof FONT_STYLES)[number];

export const IMAGE_UPLOAD_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/svg+xml'] as const;
export type ImageUploadType = (typeof IMAGE_UPLOAD_TYPES)[number];

export type FontUploaded = DomainEvent<
  'FontUploaded',
  {
    fontId: string;
    /** The family templates name (CSS font-family, a TEXT component's fontFamily). */
    family: string;
    /** The family the font file names itself. */
    originalName: string;
    /** CSS weight, 1-1000. */
    weight: number;
    style: FontStyle;
    format: FontFormat;
    /** Google Fonts' subset names the font covers (latin, cyrillic, japanese, ...). */
    subsets: string[];
    /** serif, sans-serif, monospace, display or handwriting. */
    category: string;
    bytes: number;
    storageKey: string;
    uploadedAt: string;
  }
>;

export type FontDeleted = DomainEvent<'FontDeleted', { fontId: string; bytes: number; deletedAt: string }>;

export type UploadStored = DomainEvent<
  'UploadStored',
  {
    uploadId: string;
    contentType: ImageUploadType;
    bytes: number;
    width: number;
    height: number;
    storageKey: string;
    storedAt: string;
  }
>;

export type UploadDeleted = DomainEvent<'UploadDeleted', { uploadId: string; bytes: number; deletedAt: string }>;

export type AssetEvent = FontUploaded | FontDeleted | UploadStored | UploadDeleted;
