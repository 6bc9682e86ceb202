import { validationError } from '../../domain/shared/errors.js';

/** The 400 for an upload that is not a font the service accepts, saying why. */
export const refuseFont = (why: string) => validationError(`The file is not a usable font: ${why}`, [`file: ${why}; upload a TTF, OTF, WOFF or WOFF2 font`]);
