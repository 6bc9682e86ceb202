import type { ProjectionProgress } from '../ports/read-models.js';

/**
 * Read-your-writes: waits until the read models applied what was recorded at `position` (nothing
 * when nothing was), so the caller's next read, here or in its next request, sees its write.
 */
export const readModelsReach = async (progress: ProjectionProgress, position: number | null): Promise<void> => {
  if (position !== null) await progress.waitFor(position);
};

/** A command's result once the read models have it: `readModelsReach` after the command recorded. */
export const readYourWrite = async <Result extends { readonly position: number | null }>(progress: ProjectionProgress, recorded: Promise<Result>): Promise<Result> => {
  const result = await recorded;
  await readModelsReach(progress, result.position);
  return result;
};
