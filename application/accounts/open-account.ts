import type { Plan } from '../../domain/accounts/account-events.js';
import { handleAccountCommand, type AccountCommandDeps } from './account-command.js';

/** yyyy-MM-dd one month after `date` (UTC), the next renewal of a monthly plan. */
export const oneMonthLater = (date: Date): string => {
  const next = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()));
  return next.toISOString().slice(0, 10);
};

export interface OpenAccountInput {
  readonly orgId: string;
  readonly name: string;
  readonly plan: Omit<Plan, 'status' | 'renewalAmount' | 'nextRenewalAt'>;
  /** The organization's first webhook secret, sealed. */
  readonly sealedWebhookSecret: string;
}

/** Opens an organization's account on an active monthly plan that renews to its credits. */
export const openAccount = (deps: AccountCommandDeps, { orgId, name, plan, sealedWebhookSecret }: OpenAccountInput) => {
  const now = deps.clock.now();
  return handleAccountCommand(deps, orgId, {
    type: 'OpenAccount',
    data: { orgId, name, plan: { ...plan, status: 'active', renewalAmount: plan.credits, nextRenewalAt: oneMonthLater(now) }, now: now.toISOString(), sealedWebhookSecret },
  });
};
