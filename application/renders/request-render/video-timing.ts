import { validationError } from '../../../domain/shared/errors.js';
import {
  assertFormatFitsEditor,
  DEFAULT_FPS,
  FPS_VALUES,
  RECORD_DURATION,
  type Fps,
  type VideoFormat,
} from '../../../domain/templates/template-settings.js';
import type { TemplateView } from '../../ports/read-models.js';

/**
 * Duration and frame rate of a video render: the request's when given, else the template's
 * recordDuration and fps, else the defaults. Only canvas-html templates animate.
 */
export const videoTiming = (
  template: Pick<TemplateView, 'editor' | 'recordDuration' | 'fps'>,
  format: VideoFormat,
  input: { readonly duration?: number; readonly fps?: Fps },
): { duration: number; fps: Fps } => {
  assertFormatFitsEditor(format, template.editor);
  const duration = input.duration ?? template.recordDuration ?? RECORD_DURATION.default;
  const fps = input.fps ?? template.fps ?? DEFAULT_FPS;
  if (!Number.isInteger(duration) || duration < RECORD_DURATION.min || duration > RECORD_DURATION.max) {
    throw validationError(`duration must be ${RECORD_DURATION.min}-${RECORD_DURATION.max} ms`, [`duration: ${duration} is out of bounds`]);
  }
  if (!(FPS_VALUES as readonly number[]).includes(fps)) throw validationError(`fps must be one of ${FPS_VALUES.join(', ')}`, [`fps: ${fps} is not allowed`]);
  return { duration, fps: fps as Fps };
};
