import { DomainError } from '../../../domain/shared/errors.js';
import type { ResultReadModel } from '../../ports/read-models.js';
import { systemContextFor } from '../../shared/request-context.js';
import { deleteResult, type DeleteResultDeps } from '../delete-result/delete-result.js';

export interface ExpireTestResultsDeps extends DeleteResultDeps {
  readonly results: Pick<ResultReadModel, 'expiredTestResults'>;
  /** Results deleted per pass. */
  readonly batchSize: number;
}

/**
 * A test key's render is a try, not a deliverable: once its link has expired (a day at most) the
 * result and its file are deleted, as their organization would delete them, so tries never pile up
 * in storage or in the results list. One already deleted (by its organization, or by a pass in
 * another process) is passed over. Returns the ids this pass deleted.
 */
export const expireTestResults = async (deps: ExpireTestResultsDeps): Promise<string[]> => {
  const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
  const deleted: string[] = [];
  for (const { requestId, orgId } of await deps.results.expiredTestResults(nowSeconds, deps.batchSize)) {
    try {
      await deleteResult(deps, systemContextFor(orgId, requestId), requestId);
      deleted.push(requestId);
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'not_found')) throw error;
    }
  }
  return deleted;
};
