import { isVideoFormat, type OutputFormat } from '../renders/output-formats.js';
import { validationError } from '../shared/errors.js';

// A template's settings include its output format; the formats and their facts have one home, the format table.
export { isVideoFormat, OUTPUT_FORMATS, outputExtension, type OutputFormat, type VideoFormat } from '../renders/output-formats.js';

export const EDITORS = ['html-editor', 'canvas-editor', 'canvas-html'] as const;
export type Editor = (typeof EDITORS)[number];

export const QUALITY = { min: 10, max: 100, default: 80 } as const;
export const SCALE_FACTOR = { min: 0.1, max: 4, default: 1 } as const;
export const TEMPLATE_SIZE = { min: 1, max: 5000 } as const;
export const RECORD_DURATION = { min: 1000, max: 30000, default: 5000 } as const;
export const FPS_VALUES = [24, 25, 30] as const;
export type Fps = (typeof FPS_VALUES)[number];
export const DEFAULT_FPS: Fps = 30;

/** Only the advanced editor animates, so only its templates can become videos. */
export const supportsVideo = (editor: Editor): boolean => editor === 'canvas-html';

/**
 * What one render may ask Chromium to paint: width × height × scaleFactor² device pixels. A 5000 × 5000
 * template at scale 4 is 400 million pixels (1.6 GB of RGBA), which neither Chromium's compositor nor
 * sharp can hold; a video frame is painted thirty times a second, so its budget is 4K UHD. A GIF
 * frame is stored nearly raw (256 colours, LZW): 720p already makes tens of megabytes for 30 s.
 */
export const PIXEL_BUDGET = { image: 50_000_000, video: 3840 * 2160, gif: 1280 * 720 } as const;
/** Chromium's largest texture side: a taller or wider capture comes out blank or clipped. */
export const MAX_RENDERED_SIDE = 16_384;

export interface RenderSize {
  readonly width: number;
  readonly height: number;
  readonly scaleFactor: number;
  readonly format: OutputFormat;
}

/** The reasons a size cannot be rendered, one line each naming the limit; empty when it can. */
export const renderSizeProblems = ({ width, height, scaleFactor, format }: RenderSize): string[] => {
  const problems: string[] = [];
  if (!(scaleFactor >= SCALE_FACTOR.min && scaleFactor <= SCALE_FACTOR.max)) {
    problems.push(`scaleFactor: ${scaleFactor} is outside ${SCALE_FACTOR.min} to ${SCALE_FACTOR.max}`);
    return problems;
  }
  const renderedWidth = Math.round(width * scaleFactor);
  const renderedHeight = Math.round(height * scaleFactor);
  if (renderedWidth < 1 || renderedHeight < 1) {
    problems.push(`scaleFactor: ${width} x ${height} at scale ${scaleFactor} is less than one pixel wide or high`);
  }
  if (Math.max(renderedWidth, renderedHeight) > MAX_RENDERED_SIDE) {
    problems.push(`scaleFactor: ${width} x ${height} at scale ${scaleFactor} is ${renderedWidth} x ${renderedHeight} pixels; each side at most ${MAX_RENDERED_SIDE}`);
  }
  const kind = format === 'gif' ? 'gif' : isVideoFormat(format) ? 'video' : 'image';
  const pixels = Math.round(width * height * scaleFactor * scaleFactor);
  if (pixels > PIXEL_BUDGET[kind]) {
    const what = { gif: 'a GIF frame', video: 'a video frame', image: 'an image or PDF' }[kind];
    problems.push(`width x height x scaleFactor^2: ${width} x ${height} x ${scaleFactor}^2 is ${pixels} pixels; at most ${PIXEL_BUDGET[kind]} for ${what}`);
  }
  return problems;
};

export const assertRenderableSize = (size: RenderSize): void => {
  const problems = renderSizeProblems(size);
  if (problems.length > 0) throw validationError('The render would exceed the pixel budget', problems);
};

export const assertFormatFitsEditor = (format: OutputFormat, editor: Editor): void => {
  if (isVideoFormat(format) && !supportsVideo(editor)) {
    throw validationError(`outputFormat ${format} is only available for canvas-html templates`);
  }
};
