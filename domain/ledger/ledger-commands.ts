import type { BillingPeriod } from './billing-period.js';
import type { CreditMovements } from './credit-movements.js';

/**
 * What the account's own stream recorded of credits before ledgers had streams of their own: what
 * it used of the period being charged (carried into that period's books when they open), and its
 * charges and refunds, so nothing charged there is charged or refunded again here.
 */
export interface EarlierCredits {
  readonly used: number;
  readonly movements: CreditMovements | null;
}

export const NO_EARLIER_CREDITS: EarlierCredits = { used: 0, movements: null };

export interface ChargeCredits {
  readonly type: 'ChargeCredits';
  readonly data: {
    readonly orgId: string;
    readonly requestId: string;
    readonly amount: number;
    readonly now: string;
    /** The period the request was made in: a retried charge lands in the same books whenever it runs. */
    readonly period: BillingPeriod;
    readonly earlier: EarlierCredits;
  };
}

export interface RefundCredits {
  readonly type: 'RefundCredits';
  readonly data: {
    readonly orgId: string;
    readonly requestId: string;
    readonly now: string;
    readonly period: BillingPeriod;
    readonly earlier: EarlierCredits;
  };
}

export type LedgerCommand = ChargeCredits | RefundCredits;
