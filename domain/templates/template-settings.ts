import { validationError } from '../shared/errors.js';

export const EDITORS = ['html-editor', 'canvas-editor', 'canvas-html'] as const;
export type Editor = (typeof EDITORS)[number];

export const IMAGE_FORMATS = ['jpeg', 'png', 'webp'] as const;
export const VIDEO_FORMATS = ['mp4', 'webm'] as const;
export const OUTPUT_FORMATS = ['jpeg', 'png', 'webp', 'pdf', 'mp4', 'webm'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
export type VideoFormat = (typeof VIDEO_FORMATS)[number];

export const QUALITY = { min: 10, max: 100, default: 80 } as const;
export const SCALE_FACTOR = { min: 0.1, max: 4, default: 1 } as const;
export const TEMPLATE_SIZE = { min: 1, max: 5000 } as const;
export const RECORD_DURATION = { min: 1000, max: 30000, default: 5000 } as const;
export const FPS_VALUES = [24, 25, 30] as const;
export type Fps = (typeof FPS_VALUES)[number];
export const DEFAULT_FPS: Fps = 30;

const EXTENSIONS: Record<OutputFormat, string> = {
  jpeg: '.jpg',
  png: '.png',
  webp: '.webp',
  pdf: '.pdf',
  mp4: '.mp4',
  webm: '.webm',
};

export const outputExtension = (format: OutputFormat): string => EXTENSIONS[format];

export const isVideoFormat = (format: OutputFormat): format is VideoFormat =>
  (VIDEO_FORMATS as readonly string[]).includes(format);

/** Only the advanced editor animates, so only its templates can become videos. */
export const supportsVideo = (editor: Editor): boolean => editor === 'canvas-html';

export const assertFormatFitsEditor = (format: OutputFormat, editor: Editor): void => {
  if (isVideoFormat(format) && !supportsVideo(editor)) {
    throw validationError(`outputFormat ${format} is only available for canvas-html templates`);
  }
};
