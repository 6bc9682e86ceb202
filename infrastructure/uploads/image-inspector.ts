import sharp from 'sharp';
import type { ImageFacts, ImageInspector } from '../../application/ports/asset-inspection.js';
import type { ImageUploadType } from '../../domain/accounts/asset-events.js';
import { DomainError } from '../../domain/shared/errors.js';
import { refuseImage as refuse } from './image-refusal.js';
import { looksLikeSvg } from './svg-sniffing.js';

/** Raster types by their signature; the bytes decide, never a name or a Content-Type. */
const RASTER_SIGNATURES: readonly [(bytes: Buffer) => boolean, ImageUploadType][] = [
  [(bytes) => bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), 'image/png'],
  [(bytes) => bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff, 'image/jpeg'],
  [(bytes) => bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP', 'image/webp'],
  [(bytes) => /^GIF8[79]a$/.test(bytes.subarray(0, 6).toString('latin1')), 'image/gif'],
];

const SNIFFED_TEXT_BYTES = 4096;

/**
 * Below the 20 MB of any upload: every SVG is parsed into a DOM to be sanitized, which is slow for
 * large files on a small machine; drawings and logos are kilobytes, detailed maps a few MB.
 */
export const MAX_SVG_BYTES = 5 * 1024 * 1024;

/**
 * libvips decodes off the JavaScript thread and within the pixel budget; the deadline bounds a file
 * that is slow to decode (an SVG's filters, a huge progressive JPEG) all the same.
 */
const DECODE_TIMEOUT_SECONDS = 10;

const typeOf = (content: Buffer): ImageUploadType | null => {
  const raster = RASTER_SIGNATURES.find(([matches]) => matches(content))?.[1];
  if (raster) return raster;
  return looksLikeSvg(content.subarray(0, SNIFFED_TEXT_BYTES).toString('utf8')) ? 'image/svg+xml' : null;
};

/**
 * Decodes the whole image (to a thumbnail, so memory stays small) within the pixel budget: a
 * truncated, corrupt or oversized file fails here rather than in a render.
 */
const decode = async (content: Buffer, maxPixels: number): Promise<{ width: number; height: number }> => {
  try {
    const image = sharp(content, { limitInputPixels: maxPixels, failOn: 'truncated', animated: false }).timeout({ seconds: DECODE_TIMEOUT_SECONDS });
    const { width, height } = await image.metadata();
    await image.resize(8, 8, { fit: 'inside' }).raw().toBuffer();
    if (!width || !height) throw refuse('it has no size');
    return { width, height };
  } catch (error) {
    if (error instanceof DomainError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    if (/pixel limit/i.test(message)) throw refuse(`it has more than ${maxPixels} pixels, the most one render may paint`);
    if (/timeout/i.test(message)) throw refuse('it took too long to decode');
    throw refuse(`it could not be decoded (${message})`);
  }
};

/**
 * Images sniffed by their bytes and decoded by sharp; SVGs sanitized (by `sanitizeSvg`, which
 * refuses what it cannot parse) before anything else reads them.
 */
export const createImageInspector = (sanitizeSvg: (content: Buffer) => Promise<string>): ImageInspector => ({
  async inspect(upload: Buffer, { maxPixels }): Promise<ImageFacts> {
    const contentType = typeOf(upload);
    if (!contentType) throw refuse('its bytes are not those of a PNG, JPEG, WebP, GIF or SVG image');
    if (contentType === 'image/svg+xml' && upload.length > MAX_SVG_BYTES) throw refuse(`it is an SVG of more than ${MAX_SVG_BYTES} bytes (5 MB), the most an SVG may have`);
    const content = contentType === 'image/svg+xml' ? Buffer.from(await sanitizeSvg(upload), 'utf8') : upload;
    if (content.length === 0) throw refuse('nothing of an SVG image is left once scripts and external references are removed');
    return { contentType, ...(await decode(content, maxPixels)), content };
  },
});
