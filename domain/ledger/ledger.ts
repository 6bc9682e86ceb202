import { assertNever } from '../shared/decider.js';
import { recordMovement, usageAfterRefund, type CreditMovements } from './credit-movements.js';
import type { LedgerEvent } from './ledger-events.js';

/** The books of one billing period of one organization. */
export type Ledger =
  | { readonly status: 'unopened' }
  | {
      readonly status: 'open';
      readonly orgId: string;
      readonly endsAt: string;
      /** What the period allows. */
      readonly credits: number;
      readonly used: number;
      /** Charges and refunds per request id, kept so a retried charge or refund is recognised. */
      readonly movements: CreditMovements | null;
    };

export const initialLedger = (): Ledger => ({ status: 'unopened' });

export const evolveLedger = (state: Ledger, event: LedgerEvent): Ledger => {
  if (event.type === 'BillingPeriodOpened') {
    const { orgId, endsAt, credits, carriedUsed } = event.data;
    return { status: 'open', orgId, endsAt, credits, used: carriedUsed, movements: null };
  }
  if (state.status !== 'open') return state;
  switch (event.type) {
    case 'CreditsCharged':
      return {
        ...state,
        used: state.used + event.data.amount,
        movements: recordMovement(state.movements, { requestId: event.data.requestId, kind: 'charged', amount: event.data.amount }),
      };
    case 'CreditsRefunded':
      return {
        ...state,
        used: usageAfterRefund(state.used, event.data.amount),
        movements: recordMovement(state.movements, { requestId: event.data.requestId, kind: 'refunded', amount: event.data.amount }),
      };
    default:
      return assertNever(event);
  }
};
