import type { FontFormat, FontStyle, ImageUploadType } from '../../domain/accounts/asset-events.js';

/** What a font file says of itself, read by a library that parsed the whole of it. */
export interface FontFacts {
  readonly format: FontFormat;
  /** The family name the font gives itself (the typographic family where it has one). */
  readonly family: string;
  /** CSS weight, 1-1000. */
  readonly weight: number;
  readonly style: FontStyle;
  /** Google Fonts' subset names whose characters the font covers. */
  readonly subsets: readonly string[];
  /** serif, sans-serif, monospace, display or handwriting. */
  readonly category: string;
}

/** Parses a font file; throws a validation DomainError for anything that is not a usable font. */
export interface FontInspector {
  inspect(content: Buffer): Promise<FontFacts>;
}

export interface ImageFacts {
  /** Sniffed from the bytes, never taken from a name or a header. */
  readonly contentType: ImageUploadType;
  readonly width: number;
  readonly height: number;
  /** The bytes to store: the upload itself, or an SVG stripped of scripts, handlers and external references. */
  readonly content: Buffer;
}

/** Parses an image; throws a validation DomainError for anything that is not an image it accepts. */
export interface ImageInspector {
  inspect(content: Buffer, limits: { readonly maxPixels: number }): Promise<ImageFacts>;
}
