import { validationError } from '../../../domain/shared/errors.js';
import type { TextFits } from '../../../domain/renders/text-fit.js';

/** Every fitted element's outcome by name, and the elements whose text could not fit and must not be cut. */
export interface FitReport {
  readonly fitted: TextFits;
  readonly unfit: readonly string[];
}

/**
 * Elements whose text cannot fit and must not be cut (`overflow: error`) fail the render as bad input,
 * naming each of them: nothing is stored, and the render is not charged.
 */
export const refuseUnfitText = (report: FitReport | undefined): void => {
  if (!report || report.unfit.length === 0) return;
  const details = report.unfit.map((name) => `${name}: the text does not fit its box even at its smallest font size (overflow: error)`);
  throw validationError(`The text of ${report.unfit.join(', ')} does not fit its box even at its smallest font size (overflow: error)`, details);
};
