import { DomainError } from '../../domain/shared/errors.js';
import type { Metrics, RenderKind, RenderMetricOutcome } from '../ports/metrics.js';

export const renderOutcomeOf = (error: unknown): RenderMetricOutcome => {
  if (!(error instanceof DomainError)) return 'error';
  return error.code === 'unavailable' ? 'unavailable' : 'failed';
};

/** Times one attempt at producing a file and counts how it ended. */
export const measuredRender = async <T>(metrics: Metrics, labels: { readonly kind: RenderKind; readonly format: string }, produce: () => Promise<T>): Promise<T> => {
  const finished = metrics.startRender(labels);
  try {
    const file = await produce();
    finished('done');
    return file;
  } catch (error) {
    finished(renderOutcomeOf(error));
    throw error;
  }
};
