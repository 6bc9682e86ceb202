import type { FontFormat, ImageUploadType } from '../../domain/accounts/asset-events.js';

/*
 * Where uploaded files live and how renders ask for them. A render page never reaches them over
 * the network: the worker answers these addresses from storage, for the page's own organization only.
 */

/** `.invalid` never resolves (RFC 6761): only the render page's own interception answers it. */
export const ASSET_ORIGIN = 'http://assets.render.invalid';

const FONTS_PATH = '/fonts/';

export const fontAssetUrl = (fontId: string) => `${ASSET_ORIGIN}${FONTS_PATH}${encodeURIComponent(fontId)}`;

/** The font an asset address names; null for any other address. */
export const fontIdOfAssetUrl = (url: URL): string | null =>
  url.origin === ASSET_ORIGIN && url.pathname.startsWith(FONTS_PATH) ? decodeURIComponent(url.pathname.slice(FONTS_PATH.length)) || null : null;

const UPLOAD_FILE = /^\/api\/v2\/uploads\/([^/]+)\/file$/;

/** The path of an upload's bytes under the service's public origin: its href, which templates use as an image source. */
export const uploadFilePath = (uploadId: string) => `/api/v2/uploads/${encodeURIComponent(uploadId)}/file`;

/** The upload an href names when it points at the service's own origin; null otherwise. */
export const uploadIdOfHref = (url: URL, publicOrigin: string): string | null => {
  if (url.origin !== publicOrigin) return null;
  const match = UPLOAD_FILE.exec(url.pathname);
  return match?.[1] ? decodeURIComponent(match[1]) : null;
};

export const FONT_CONTENT_TYPES: Readonly<Record<FontFormat, string>> = { ttf: 'font/ttf', otf: 'font/otf', woff: 'font/woff', woff2: 'font/woff2' };

const IMAGE_EXTENSIONS: Readonly<Record<ImageUploadType, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/svg+xml': 'svg',
};

/** Beside the organization's results (`<orgId>/<requestId>/...`): request ids never read "fonts" or "uploads". */
export const fontStorageKey = (orgId: string, fontId: string, format: FontFormat) => `${orgId}/fonts/${fontId}.${format}`;

export const uploadStorageKey = (orgId: string, uploadId: string, contentType: ImageUploadType) => `${orgId}/uploads/${uploadId}.${IMAGE_EXTENSIONS[contentType]}`;
