import { validationError } from '../../domain/shared/errors.js';

/** The 400 for an upload that is not an image the service accepts, saying why. */
export const refuseImage = (why: string) =>
  validationError(`The file is not an image that can be uploaded: ${why}`, [`file: ${why}; upload a PNG, JPEG, WebP, GIF or SVG image`]);
