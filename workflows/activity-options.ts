import type { LocalActivityOptions } from '@temporalio/workflow';

/**
 * Short bookkeeping steps (charging, recording an outcome, reading a policy) run as local activities:
 * no task-queue round trip on the hot path. Each is idempotent, so it is retried quickly and often
 * rather than failing a render over a database hiccup. One set of options for every workflow.
 */
export const BOOKKEEPING: LocalActivityOptions = {
  startToCloseTimeout: '15s',
  retry: { initialInterval: '100ms', backoffCoefficient: 2, maximumInterval: '5s', maximumAttempts: 20 },
};
