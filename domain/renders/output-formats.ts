/** What a file is to the reader: a picture, a document of pages, or moving pictures. */
export type OutputKind = 'image' | 'document' | 'video';

export interface OutputFormatFacts {
  /** With its dot, as result files are named. */
  readonly extension: string;
  readonly contentType: string;
  readonly kind: OutputKind;
  /** Answered 202 and polled (spec rules 4-5) rather than waited for: frame by frame, it takes too long. */
  readonly asynchronous: boolean;
}

/**
 * Every format the service makes files in, and all it knows of each: the API validates and
 * answers with it, the encoders and captures label their files with it, the studio offers it.
 * `gif` is this service's extension to the spec: an animated GIF, made and priced like a video.
 */
export const OUTPUT_FORMAT_TABLE = {
  jpeg: { extension: '.jpg', contentType: 'image/jpeg', kind: 'image', asynchronous: false },
  png: { extension: '.png', contentType: 'image/png', kind: 'image', asynchronous: false },
  webp: { extension: '.webp', contentType: 'image/webp', kind: 'image', asynchronous: false },
  pdf: { extension: '.pdf', contentType: 'application/pdf', kind: 'document', asynchronous: false },
  mp4: { extension: '.mp4', contentType: 'video/mp4', kind: 'video', asynchronous: true },
  webm: { extension: '.webm', contentType: 'video/webm', kind: 'video', asynchronous: true },
  gif: { extension: '.gif', contentType: 'image/gif', kind: 'video', asynchronous: true },
} as const satisfies Record<string, OutputFormatFacts>;

type Table = typeof OUTPUT_FORMAT_TABLE;
export type OutputFormat = keyof Table;
type FormatOfKind<K extends OutputKind> = { [F in OutputFormat]: Table[F]['kind'] extends K ? F : never }[OutputFormat];
export type ImageFormat = FormatOfKind<'image'>;
export type VideoFormat = FormatOfKind<'video'>;

export const OUTPUT_FORMATS = Object.keys(OUTPUT_FORMAT_TABLE) as [OutputFormat, ...OutputFormat[]];

export const outputExtension = (format: OutputFormat): string => OUTPUT_FORMAT_TABLE[format].extension;

export const outputContentType = (format: OutputFormat): string => OUTPUT_FORMAT_TABLE[format].contentType;

export const isVideoFormat = (format: OutputFormat): format is VideoFormat => OUTPUT_FORMAT_TABLE[format].kind === 'video';

export const isAsynchronousFormat = (format: OutputFormat): boolean => OUTPUT_FORMAT_TABLE[format].asynchronous;
