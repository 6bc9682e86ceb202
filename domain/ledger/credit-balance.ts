import type { CreditsRenewed } from '../accounts/account-events.js';
import { usageAfterRefund } from './credit-movements.js';
import type { LedgerEvent } from './ledger-events.js';

/** An organization's credits as reports and admission see them: the newest period's allowance and use. */
export interface CreditBalance {
  readonly creditsTotal: number;
  readonly creditsUsed: number;
  /** The date the newest period renews on: the name of its ledger stream. */
  readonly nextRenewalAt: string;
}

/** Credit events as the log holds them: in ledger streams, and (before ledgers had streams of their own) in the account's stream. */
export type CreditEvent = LedgerEvent | CreditsRenewed;

/**
 * Folds one credit event into the balance. `ledgerEndsAt` is the period of the ledger stream the
 * event came from, or null for the account's own stream, whose events always concern its current
 * period. Books opened for a later period replace the balance; a charge or refund counts only in
 * the period it belongs to (a request made just before a renewal and charged just after it is
 * charged to the period it was made in).
 */
export const evolveCreditBalance = (balance: CreditBalance, event: CreditEvent, ledgerEndsAt: string | null): CreditBalance => {
  switch (event.type) {
    case 'BillingPeriodOpened':
      return event.data.endsAt >= balance.nextRenewalAt
        ? { creditsTotal: event.data.credits, creditsUsed: event.data.carriedUsed, nextRenewalAt: event.data.endsAt }
        : balance;
    case 'CreditsCharged':
      return ledgerEndsAt === null || ledgerEndsAt === balance.nextRenewalAt ? { ...balance, creditsUsed: balance.creditsUsed + event.data.amount } : balance;
    case 'CreditsRefunded':
      return ledgerEndsAt === null || ledgerEndsAt === balance.nextRenewalAt
        ? { ...balance, creditsUsed: usageAfterRefund(balance.creditsUsed, event.data.amount) }
        : balance;
    case 'CreditsRenewed':
      return { creditsTotal: event.data.credits, creditsUsed: 0, nextRenewalAt: event.data.nextRenewalAt };
    default:
      return event satisfies never;
  }
};
