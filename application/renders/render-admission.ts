import { creditsAvailable } from '../../domain/ledger/billing-period.js';
import type { StoredFile } from '../../domain/renders/render-events.js';
import { DEFAULT_RETRY_AFTER_SECONDS, DomainError, UnavailableError } from '../../domain/shared/errors.js';
import type { AccountReadModel, ProjectionProgress } from '../ports/read-models.js';
import type { RenderOrchestrator } from '../ports/render-orchestrator.js';

/**
 * What renders and captures check before they are accepted, and how a caller waits for one: both
 * refuse early rather than append a request that cannot go anywhere.
 */

/**
 * What the account must have for a new file to be made: the credits it costs, once a due renewal is
 * counted as the charge itself will count it, and room in its upload storage. The file's size is not
 * known before it is rendered, so storage refuses once the quota is reached rather than predicting;
 * cache hits store no file and do not come here.
 */
export const assertAccountAdmits = async (accounts: AccountReadModel, orgId: string, cost: number, today: string): Promise<void> => {
  const account = await accounts.getAccount(orgId);
  if (!account) throw new DomainError('forbidden', 'Organization not found');
  const left = creditsAvailable(account, today);
  if (left < cost) {
    throw new DomainError('payment_required', 'Not enough credits', [`this render costs ${cost} credits; ${left} left`]);
  }
  if (account.uploadsUsed >= account.uploadsTotal) {
    throw new DomainError('payment_required', 'Upload storage is full', [
      `uploads: ${account.uploadsUsed} of ${account.uploadsTotal} bytes used; delete results to make room`,
    ]);
  }
};

/**
 * Starts the workflow of a request already recorded. When that fails (Temporal unreachable), the
 * caller is told the request did not start and may be retried: the pending-request repair marks it
 * failed later, and it was never charged, since only its workflow charges.
 */
export const startRecordedRequest = async (requestId: string, start: () => Promise<void>): Promise<void> => {
  try {
    await start();
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new UnavailableError('The render could not be started; retry shortly', DEFAULT_RETRY_AFTER_SECONDS, [
      `requestId ${requestId}: not started (${why}); it will be marked failed and nothing is charged`,
    ]);
  }
};

/**
 * Waits for the workflow of an accepted request, then for the read models to show its outcome (a
 * result listed as done, an identical request answered from the cache), and returns the file it
 * stored; a failure becomes the error the caller sees.
 */
export const awaitOutcome = async (
  { orchestrator, progress }: { readonly orchestrator: RenderOrchestrator; readonly progress: ProjectionProgress },
  requestId: string,
  timeoutMs: number,
): Promise<StoredFile> => {
  const outcome = await orchestrator.waitForOutcome(requestId, timeoutMs);
  if (outcome !== 'timeout' && outcome.position != null) await progress.waitFor(outcome.position);
  if (outcome === 'timeout') {
    throw new DomainError('unavailable', 'The render is taking longer than expected; it goes on and will appear in results', [
      `requestId ${requestId}: still rendering after ${timeoutMs} ms`,
    ]);
  }
  if (outcome.status === 'failed' && outcome.code === 'unavailable') {
    throw new UnavailableError(`Rendering is at capacity; retry shortly (${outcome.reason})`, outcome.retryAfterSeconds, [outcome.reason]);
  }
  if (outcome.status === 'failed') throw new DomainError(outcome.code, `Render failed: ${outcome.reason}`, [outcome.reason]);
  return outcome.file;
};

/**
 * Bounds the callers waiting for their work at once; one more is refused with 503 instead of
 * queueing without bound.
 */
export const createWaitingRoom = (capacity: number) => {
  let waiting = 0;
  return {
    assertRoom(): void {
      if (waiting >= capacity) throw new DomainError('unavailable', 'Too many renders in progress; retry shortly', ['render queue is full']);
    },
    async wait<T>(work: () => Promise<T>): Promise<T> {
      waiting++;
      try {
        return await work();
      } finally {
        waiting--;
      }
    },
  };
};
