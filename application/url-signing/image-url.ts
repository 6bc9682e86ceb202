import { OUTPUT_FORMAT_TABLE, OUTPUT_FORMATS, outputExtension, type ImageFormat, type OutputFormat } from '../../domain/renders/output-formats.js';

/*
 * GET /img/{templateId}.{extension}: the image formats of the format table, named by their file
 * extension (the spec's .jpg, and png and webp as an extension of this service).
 */

const isImageFormat = (format: OutputFormat): format is ImageFormat => OUTPUT_FORMAT_TABLE[format].kind === 'image';

const IMAGE_FORMAT_BY_EXTENSION: ReadonlyMap<string, ImageFormat> = new Map(
  OUTPUT_FORMATS.filter(isImageFormat).map((format) => [outputExtension(format).slice(1), format]),
);

export const IMAGE_URL_EXTENSIONS = ['jpg', 'png', 'webp'] as const;
export type ImageUrlExtension = (typeof IMAGE_URL_EXTENSIONS)[number];

export const imageFormatOf = (extension: ImageUrlExtension): ImageFormat => {
  const format = IMAGE_FORMAT_BY_EXTENSION.get(extension);
  if (!format) throw new Error(`no image format has the extension .${extension}`);
  return format;
};

/**
 * RFC 3986 percent-encoding, as AWS signatures use it: the unreserved characters (A-Z a-z 0-9 - . _ ~)
 * as they are, every other UTF-8 byte as %XX in upper case. Unlike encodeURIComponent it also
 * encodes ! ' ( ) *, so a signer in any language (or in a shell) gets the same text.
 */
export const encodeRfc3986 = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);

/** The path of a template's image URL, as signed and as served. */
export const imageUrlPath = (templateId: string, extension: ImageUrlExtension): string => `/img/${encodeRfc3986(templateId)}.${extension}`;
