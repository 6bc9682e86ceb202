import { renewalAfter } from '../../domain/ledger/billing-period.js';
import { notFound } from '../../domain/shared/errors.js';
import type { Clock } from '../ports/clock.js';
import type { AccountReadModel, AccountView } from '../ports/read-models.js';
import type { RequestContext } from '../shared/request-context.js';

/** The Usage summary of spec section 2. */
export interface UsageDto {
  identifier: string;
  credits: { used: number; total: number; nextRenewalAt: string; renewalAmount: number };
  uploads: { used: number; total: number };
  plan: { name: string; status: string; nextBillingAt: string };
}

export type UsageService = ReturnType<typeof createUsageService>;

/**
 * Renewals are recorded lazily, by the first charge of a new period. Until then the stored figures
 * describe a period that is over, so the current one is shown as the renewal will make it.
 */
const currentPeriod = (account: AccountView, today: string) =>
  account.nextRenewalAt > today
    ? { used: account.creditsUsed, total: account.creditsTotal, nextRenewalAt: account.nextRenewalAt }
    : { used: 0, total: account.renewalAmount, nextRenewalAt: renewalAfter(account.nextRenewalAt, today) };

export const createUsageService = (deps: { accounts: AccountReadModel; clock: Clock }) => ({
  /** Any valid key may read its own organization's usage: it grants no access to templates or renders. */
  async get(context: RequestContext): Promise<UsageDto> {
    const account = await deps.accounts.getAccount(context.caller.orgId);
    if (!account) throw notFound('Organization');
    const period = currentPeriod(account, deps.clock.now().toISOString().slice(0, 10));
    return {
      identifier: account.orgId,
      credits: { ...period, renewalAmount: account.renewalAmount },
      uploads: { used: account.uploadsUsed, total: account.uploadsTotal },
      // Billing follows the credit period: the plan renews when the credits do.
      plan: { name: account.planName, status: account.planStatus, nextBillingAt: period.nextRenewalAt },
    };
  },
});
