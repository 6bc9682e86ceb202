import sharp from 'sharp';
import { outputContentType, type ImageFormat } from '../../domain/renders/output-formats.js';
import { validationError } from '../../domain/shared/errors.js';

export interface EncodeImageOptions {
  format: ImageFormat;
  /** 10..100; lossless PNG ignores it. */
  quality: number;
  /** Keeps the top-left width x height; larger than the image keeps the whole side. */
  crop?: { width: number; height: number };
}

export interface EncodedImage {
  buffer: Buffer;
  width: number;
  height: number;
  contentType: string;
}

export async function encodeImage(png: Buffer, options: EncodeImageOptions): Promise<EncodedImage> {
  const { format, quality, crop } = options;
  if (!Number.isInteger(quality) || quality < 10 || quality > 100) {
    throw validationError(`quality must be an integer from 10 to 100, got ${quality}`);
  }
  if (crop && !(isPositiveInteger(crop.width) && isPositiveInteger(crop.height))) {
    throw validationError(`crop width and height must be positive integers, got ${crop.width}x${crop.height}`);
  }
  const { width: sourceWidth, height: sourceHeight } = await sharp(png).metadata();
  if (!sourceWidth || !sourceHeight) throw new Error('the screenshot has no dimensions');
  const width = crop ? Math.min(crop.width, sourceWidth) : sourceWidth;
  const height = crop ? Math.min(crop.height, sourceHeight) : sourceHeight;

  // Chromium's screenshot is already a PNG of the right size: re-encoding it would only cost time.
  if (format === 'png' && width === sourceWidth && height === sourceHeight) {
    return { buffer: png, width, height, contentType: outputContentType('png') };
  }

  let image = sharp(png);
  if (width !== sourceWidth || height !== sourceHeight) image = image.extract({ left: 0, top: 0, width, height });
  switch (format) {
    case 'jpeg':
      // JPEG has no alpha; a transparent page background shows white, as in a browser.
      image = image.flatten({ background: '#ffffff' }).jpeg({ quality });
      break;
    case 'png':
      image = image.png();
      break;
    case 'webp':
      image = image.webp({ quality });
      break;
    default: {
      const unknown: never = format;
      throw validationError(`unsupported image format ${String(unknown)}`);
    }
  }
  const { data, info } = await image.toBuffer({ resolveWithObject: true });
  return { buffer: data, width: info.width, height: info.height, contentType: outputContentType(format) };
}

const isPositiveInteger = (value: number) => Number.isInteger(value) && value > 0;
