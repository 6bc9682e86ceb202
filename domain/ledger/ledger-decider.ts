import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError, validationError } from '../shared/errors.js';
import { chargedFor, wasRefunded } from './credit-movements.js';
import type { ChargeCredits, LedgerCommand, RefundCredits } from './ledger-commands.js';
import { isLedgerEvent, type BillingPeriodOpened, type CreditsCharged, type CreditsRefunded, type LedgerEvent } from './ledger-events.js';
import { evolveLedger, initialLedger, type Ledger } from './ledger.js';

type OpenLedger = Extract<Ledger, { status: 'open' }>;

/** The period's books as the command finds them: open already, or opened by it. */
const booksFor = ({ data }: LedgerCommand, state: Ledger): { readonly opening: BillingPeriodOpened[]; readonly books: OpenLedger } => {
  if (state.status === 'open') return { opening: [], books: state };
  const opened: BillingPeriodOpened = {
    type: 'BillingPeriodOpened',
    data: { orgId: data.orgId, endsAt: data.period.endsAt, credits: data.period.credits, carriedUsed: data.earlier.used, openedAt: data.now },
  };
  return { opening: [opened], books: evolveLedger(state, opened) as OpenLedger };
};

/** Charges once per request id, here or in the account's earlier records: a retried activity finds its charge already recorded. */
export const decideChargeCredits = (command: ChargeCredits, state: Ledger): (BillingPeriodOpened | CreditsCharged)[] => {
  const { data } = command;
  if (data.amount < 0) throw validationError('a charge cannot be negative');
  if (data.amount === 0) return [];
  const { opening, books } = booksFor(command, state);
  if (chargedFor(books.movements, data.requestId) !== undefined || chargedFor(data.earlier.movements, data.requestId) !== undefined) return [];
  const available = books.credits - books.used;
  if (data.amount > available) {
    throw new DomainError('payment_required', 'Not enough credits', [`this render costs ${data.amount} credits; ${available} left`]);
  }
  return [...opening, { type: 'CreditsCharged', data: { requestId: data.requestId, amount: data.amount, chargedAt: data.now } }];
};

/** Gives back what one request was charged, at most once. */
export const decideRefundCredits = (command: RefundCredits, state: Ledger): (BillingPeriodOpened | CreditsRefunded)[] => {
  const { data } = command;
  const { opening, books } = booksFor(command, state);
  const amount = chargedFor(books.movements, data.requestId) ?? chargedFor(data.earlier.movements, data.requestId);
  if (amount === undefined || wasRefunded(books.movements, data.requestId) || wasRefunded(data.earlier.movements, data.requestId)) return [];
  return [...opening, { type: 'CreditsRefunded', data: { requestId: data.requestId, amount, refundedAt: data.now } }];
};

export const decideLedger = (command: LedgerCommand, state: Ledger): LedgerEvent[] => {
  switch (command.type) {
    case 'ChargeCredits':
      return decideChargeCredits(command, state);
    case 'RefundCredits':
      return decideRefundCredits(command, state);
    default:
      return assertNever(command);
  }
};

export const ledgerDecider: Decider<Ledger, LedgerCommand, LedgerEvent> = {
  decide: decideLedger,
  evolve: evolveLedger,
  initialState: initialLedger,
  isEvent: isLedgerEvent,
};
