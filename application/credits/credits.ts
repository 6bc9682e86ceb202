import { accountDecider } from '../../domain/accounts/account-decider.js';
import { accountStream } from '../../domain/accounts/account-events.js';
import { earlierCredits, type OpenAccountState } from '../../domain/accounts/account.js';
import { periodOn } from '../../domain/ledger/billing-period.js';
import type { EarlierCredits, LedgerCommand } from '../../domain/ledger/ledger-commands.js';
import { ledgerDecider } from '../../domain/ledger/ledger-decider.js';
import { ledgerStream } from '../../domain/ledger/ledger-events.js';
import type { BillingPeriod } from '../../domain/ledger/billing-period.js';
import { notFound } from '../../domain/shared/errors.js';
import { createCommandBatcher } from '../shared/command-batcher.js';
import type { CommandDeps } from '../shared/command-handler.js';
import { systemContextFor } from '../shared/request-context.js';
import { settledMemo } from '../shared/settled-memo.js';
import { aggregateStream } from '../shared/stream-reads.js';

/** A request as its credits need it: whose it is, and when it was made, which names the period it is charged to. */
export interface ChargedRequest {
  readonly orgId: string;
  readonly requestId: string;
  /** Credits the request costs; a refund gives back what was charged instead. */
  readonly credits: number;
  readonly requestedAt: string;
}

export interface Credits {
  /** Charges a request's price to the books of the period it was made in, once however often it is retried. */
  charge(request: ChargedRequest): Promise<void>;
  /** Gives back what a request was charged, if anything, and never twice. */
  refund(request: ChargedRequest): Promise<void>;
}

/** Accounts kept at once for their plan; past it the oldest is read again when next charged. */
const ACCOUNTS_KEPT = 1_000;

/**
 * Charges and refunds on the organization's ledger of the request's billing period. Every render of
 * an organization charges the same stream, so its commands are batched rather than serialised.
 * The account's plan names the period, and what the account's own stream recorded of credits
 * before ledgers existed is taken over with it; both never change once the account is open, so
 * each is read once per process, and a cold charge reads the account (no charges in it) and the
 * current period's books, never the organization's whole history.
 */
export const createCredits = (deps: CommandDeps): Credits => {
  const ledgers = createCommandBatcher(deps, ledgerDecider, (streamName: string) => streamName);
  const accountOf = settledMemo(
    async (orgId: string): Promise<OpenAccountState> => {
      const { state } = await aggregateStream(deps.eventStore, accountStream(orgId), accountDecider);
      if (state.status !== 'open') throw notFound('Organization');
      return state;
    },
    { capacity: ACCOUNTS_KEPT, keyOf: (orgId) => orgId },
  );

  const onLedger = async (request: ChargedRequest, command: (period: BillingPeriod, earlier: EarlierCredits, now: string) => LedgerCommand) => {
    const account = await accountOf(request.orgId);
    const period = periodOn(account.plan, request.requestedAt.slice(0, 10));
    await ledgers.handle(
      ledgerStream(request.orgId, period.endsAt),
      command(period, earlierCredits(account, period), deps.clock.now().toISOString()),
      systemContextFor(request.orgId, request.requestId),
    );
  };

  return {
    charge: (request) =>
      onLedger(request, (period, earlier, now) => ({
        type: 'ChargeCredits',
        data: { orgId: request.orgId, requestId: request.requestId, amount: request.credits, now, period, earlier },
      })),
    refund: (request) =>
      onLedger(request, (period, earlier, now) => ({ type: 'RefundCredits', data: { orgId: request.orgId, requestId: request.requestId, now, period, earlier } })),
  };
};
