import { EMPTY_COMPONENT_DOCUMENT } from '../../../domain/templates/components/component-document.js';
import { resolveValues } from '../../../domain/templates/components/resolve-values.js';
import { isVideoFormat, outputExtension, type OutputFormat } from '../../../domain/renders/output-formats.js';
import type { RenderSpec } from '../../../domain/renders/render-events.js';
import { validationError } from '../../../domain/shared/errors.js';
import { assertRenderableSize } from '../../../domain/templates/template-settings.js';
import type { TemplateView } from '../../ports/read-models.js';
import { videoTiming } from './video-timing.js';
import type { RenderInput } from './render-input.js';

const withExtension = (fileName: string, format: OutputFormat) => {
  const extension = outputExtension(format);
  return fileName.toLowerCase().endsWith(extension) ? fileName : `${fileName}${extension}`;
};

/** What every render pins when it is accepted, video or not. */
const commonSpec = (template: TemplateView, input: RenderInput, requestId: string, format: OutputFormat) => ({
  templateId: template.id,
  templateRevision: template.revision,
  templateVersion: template.version,
  templateName: template.name,
  editor: template.editor,
  format,
  width: template.width,
  height: template.height,
  crop: input.width !== undefined || input.height !== undefined ? { width: input.width ?? template.width, height: input.height ?? template.height } : null,
  quality: template.quality,
  scaleFactor: template.scaleFactor,
  data: input.data ?? {},
  waitTime: input.waitTime ?? 0,
  fileName: withExtension(input.fileName ?? requestId, format),
  expires: input.expires ?? null,
});

/** The standard a PDF is to meet, which only a PDF can. */
const pdfStandardOf = (input: RenderInput, format: OutputFormat): Pick<RenderSpec, 'pdfStandard'> => {
  if (input.pdfStandard === undefined) return {};
  if (format !== 'pdf') {
    throw validationError(`pdfStandard applies to pdf renders only; this render is ${format}`, [`pdfStandard: ${input.pdfStandard} needs outputFormat pdf, not ${format}`]);
  }
  return { pdfStandard: input.pdfStandard };
};

/** Everything a worker needs to produce the file, fixed now: the template version's revision, sizes, data and format. */
export const buildSpec = (template: TemplateView, input: RenderInput, requestId: string): RenderSpec => {
  const format = input.outputFormat ?? template.outputFormat;
  const pdfStandard = pdfStandardOf(input, format);
  // Templates stored before the budget existed, and a video asked of an image template, meet it here.
  assertRenderableSize({ width: template.width, height: template.height, scaleFactor: template.scaleFactor, format });
  // Canvas data must name the template's properties with valid values: a 400 now, not a failed render later.
  if (template.editor !== 'html-editor') resolveValues(template.components ?? EMPTY_COMPONENT_DOCUMENT, input.data ?? {});
  if (isVideoFormat(format)) return { ...commonSpec(template, input, requestId, format), ...videoTiming(template, format, input) };
  if (input.duration !== undefined || input.fps !== undefined) throw validationError('duration and fps apply to video renders only');
  return { ...commonSpec(template, input, requestId, format), duration: null, fps: null, ...pdfStandard };
};
