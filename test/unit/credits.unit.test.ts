import { describe, expect, it } from 'vitest';
import { evolveAccount, earlierCredits, initialAccount, type OpenAccountState } from '../../domain/accounts/account.js';
import type { AccountEvent } from '../../domain/accounts/account-events.js';
import { addMonth, periodOn, renewalAfter } from '../../domain/ledger/billing-period.js';
import { evolveCreditBalance, type CreditBalance } from '../../domain/ledger/credit-balance.js';
import { NO_EARLIER_CREDITS, type EarlierCredits } from '../../domain/ledger/ledger-commands.js';
import { ledgerDecider } from '../../domain/ledger/ledger-decider.js';
import { ledgerOfStream, ledgerStream, type LedgerEvent } from '../../domain/ledger/ledger-events.js';
import { renderCost } from '../../domain/renders/pricing.js';
import { canonicalJson } from '../../domain/shared/canonical-json.js';
import { deciderSpec } from '../support/decider-spec.js';

const spec = deciderSpec(ledgerDecider);
const now = '2026-01-10T00:00:00.000Z';
const plan = { name: 'free', status: 'active', credits: 10, renewalAmount: 7, nextRenewalAt: '2026-02-01', uploadsBytes: 100 };
const period = { endsAt: '2026-02-01', credits: 10 };
const opened = (carriedUsed = 0): LedgerEvent => ({ type: 'BillingPeriodOpened', data: { orgId: 'org-a', endsAt: period.endsAt, credits: 10, carriedUsed, openedAt: now } });
const charge = (requestId: string, amount: number, earlier: EarlierCredits = NO_EARLIER_CREDITS) =>
  ({ type: 'ChargeCredits' as const, data: { orgId: 'org-a', requestId, amount, now, period, earlier } });
const refund = (requestId: string, earlier: EarlierCredits = NO_EARLIER_CREDITS) => ({ type: 'RefundCredits' as const, data: { orgId: 'org-a', requestId, now, period, earlier } });
const charged = (requestId: string, amount: number): LedgerEvent => ({ type: 'CreditsCharged', data: { requestId, amount, chargedAt: now } });
const refunded = (requestId: string, amount: number): LedgerEvent => ({ type: 'CreditsRefunded', data: { requestId, amount, refundedAt: now } });

describe('ChargeCredits', () => {
  it("opens the period's books with its first charge", () => spec.given([]).when(charge('r1', 3)).then([opened(), charged('r1', 3)]));
  it('charges a request in open books', () => spec.given([opened()]).when(charge('r1', 3)).then([charged('r1', 3)]));
  it('charges a request id once, however often it is retried', () => spec.given([opened(), charged('r1', 3)]).when(charge('r1', 3)).thenNothingHappens());
  it('charges nothing for a free (cached) render, and opens no books for it', () => spec.given([]).when(charge('r1', 0)).thenNothingHappens());
  it('refuses a charge beyond the balance with payment_required', () => spec.given([opened(), charged('r1', 8)]).when(charge('r2', 3)).thenThrows('payment_required'));
  it('refuses a negative charge', () => spec.given([opened()]).when(charge('r1', -1)).thenThrows('validation'));
});

describe('RefundCredits', () => {
  it('gives back what the request was charged', () => spec.given([opened(), charged('r1', 3)]).when(refund('r1')).then([refunded('r1', 3)]));
  it('refunds once', () => spec.given([opened(), charged('r1', 3), refunded('r1', 3)]).when(refund('r1')).thenNothingHappens());
  it('refunds nothing that was never charged', () => spec.given([opened()]).when(refund('r9')).thenNothingHappens());
  it('makes the credits usable again', () => spec.given([opened(), charged('r1', 10), refunded('r1', 10)]).when(charge('r2', 3)).then([charged('r2', 3)]));

  describe('deep in busy books', () => {
    const big: LedgerEvent = { type: 'BillingPeriodOpened', data: { orgId: 'org-a', endsAt: period.endsAt, credits: 1_000_000, carriedUsed: 0, openedAt: now } };
    const history = [big, ...Array.from({ length: 20_000 }, (_, i) => charged(`b${i}`, 1)), refunded('b7', 1)];
    it('still recognises an old charge', () => spec.given(history).when(charge('b3', 1)).thenNothingHappens());
    it('still refunds an old charge once, with its amount', () => spec.given(history).when(refund('b11')).then([refunded('b11', 1)]));
    it('still knows an old refund', () => spec.given(history).when(refund('b7')).thenNothingHappens());
  });
});

describe("credits the account's own stream recorded before ledgers had streams", () => {
  const openedAccount: AccountEvent = { type: 'AccountOpened', data: { orgId: 'org-a', name: 'Acme', plan, openedAt: now } };
  const legacy = (...events: AccountEvent[]) => [openedAccount, ...events].reduce(evolveAccount, initialAccount()) as OpenAccountState;
  const account = legacy(
    { type: 'CreditsCharged', data: { requestId: 'old-1', amount: 4, chargedAt: now } },
    { type: 'CreditsCharged', data: { requestId: 'old-2', amount: 2, chargedAt: now } },
    { type: 'CreditsRefunded', data: { requestId: 'old-2', amount: 2, refundedAt: now } },
  );
  const earlier = earlierCredits(account, period);

  it('carries what the period had used into its books, and nothing into a later period', () => {
    expect(earlier.used).toBe(4);
    expect(earlierCredits(account, { endsAt: '2026-03-01', credits: 7 }).used).toBe(0);
    spec.given([]).when(charge('r1', 6, earlier)).then([opened(4), charged('r1', 6)]);
    spec.given([]).when(charge('r1', 7, earlier)).thenThrows('payment_required');
  });
  it('never charges or refunds again what the account stream charged or refunded', () => {
    spec.given([]).when(charge('old-1', 4, earlier)).thenNothingHappens();
    spec.given([]).when(refund('old-2', earlier)).thenNothingHappens();
    spec.given([]).when(refund('old-1', earlier)).then([opened(4), refunded('old-1', 4)]);
  });
  it('keeps the period a legacy renewal opened', () => {
    const renewed = legacy({ type: 'CreditsRenewed', data: { credits: 7, periodStartedAt: '2026-02-02T00:00:00.000Z', nextRenewalAt: '2026-03-01' } }, {
      type: 'CreditsCharged',
      data: { requestId: 'old-3', amount: 5, chargedAt: '2026-02-02T00:00:00.000Z' },
    });
    expect(earlierCredits(renewed, periodOn(plan, '2026-02-10'))).toMatchObject({ used: 5 });
  });
});

describe('billing periods', () => {
  it('names the period a day falls in by its renewal date: the plan credits first, the renewal amount after', () => {
    expect(periodOn(plan, '2026-01-31')).toEqual({ endsAt: '2026-02-01', credits: 10 });
    expect(periodOn(plan, '2026-02-01')).toEqual({ endsAt: '2026-03-01', credits: 7 });
    expect(periodOn(plan, '2026-07-15')).toEqual({ endsAt: '2026-08-01', credits: 7 });
  });

  it('names a ledger stream by organization and period, and reads both back', () => {
    expect(ledgerStream('org-with-dashes', '2026-02-01')).toBe('ledger-org-with-dashes-2026-02-01');
    expect(ledgerOfStream(ledgerStream('org-with-dashes', '2026-02-01'))).toEqual({ orgId: 'org-with-dashes', endsAt: '2026-02-01' });
    expect(ledgerOfStream('account-org-a')).toBeNull();
  });

  it('folds the balance of the newest period: later books replace it, a straggler charged to an earlier period does not count', () => {
    const start: CreditBalance = { creditsTotal: 10, creditsUsed: 0, nextRenewalAt: '2026-02-01' };
    const steps: [LedgerEvent, string][] = [
      [opened(), '2026-02-01'],
      [charged('a', 3), '2026-02-01'],
      [{ type: 'BillingPeriodOpened', data: { orgId: 'org-a', endsAt: '2026-03-01', credits: 7, carriedUsed: 0, openedAt: now } }, '2026-03-01'],
      [charged('b', 2), '2026-03-01'],
      [charged('late', 5), '2026-02-01'],
      [refunded('b', 2), '2026-03-01'],
      [charged('c', 1), '2026-03-01'],
    ];
    const balance = steps.reduce((sum, [event, endsAt]) => evolveCreditBalance(sum, event, endsAt), start);
    expect(balance).toEqual({ creditsTotal: 7, creditsUsed: 1, nextRenewalAt: '2026-03-01' });
  });

  it('folds a legacy account stream as before: charges count, a renewal starts again', () => {
    const start: CreditBalance = { creditsTotal: 10, creditsUsed: 0, nextRenewalAt: '2026-02-01' };
    const afterCharge = evolveCreditBalance(start, charged('a', 4), null);
    expect(afterCharge.creditsUsed).toBe(4);
    expect(evolveCreditBalance(afterCharge, { type: 'CreditsRenewed', data: { credits: 7, periodStartedAt: now, nextRenewalAt: '2026-03-01' } }, null)).toEqual({
      creditsTotal: 7,
      creditsUsed: 0,
      nextRenewalAt: '2026-03-01',
    });
  });

  it('steps months and clamps to the last day', () => {
    expect(addMonth('2026-01-31')).toBe('2026-02-28');
    expect(addMonth('2026-12-15')).toBe('2027-01-15');
    expect(renewalAfter('2026-01-01', '2026-03-01')).toBe('2026-04-01');
    expect(renewalAfter('2026-05-01', '2026-03-01')).toBe('2026-05-01');
  });
});

describe('pricing and canonical JSON', () => {
  it('costs 1 credit per image or PDF, 10 per started video second, 0 when cached', () => {
    expect(renderCost('jpeg', null, false)).toBe(1);
    expect(renderCost('pdf', null, false)).toBe(1);
    expect(renderCost('mp4', 1000, false)).toBe(10);
    expect(renderCost('webm', 1001, false)).toBe(20);
    expect(renderCost('mp4', 30000, false)).toBe(300);
    expect(renderCost('png', null, true)).toBe(0);
  });

  it('writes equal objects as equal text whatever their key order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe(canonicalJson({ a: { c: null, d: [1, { y: 2, z: 1 }] }, b: 1 }));
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
  });

  it('writes what JSON.stringify writes of the same value with its keys sorted, as the stored hash chain expects', () => {
    const at = new Date('2026-01-10T00:00:00.000Z');
    expect(canonicalJson({ z: [1, undefined, 'two', { b: at, a: undefined }], 'q"uote': null, a: { y: true, x: -0.5 }, e: [] })).toBe(
      '{"a":{"x":-0.5,"y":true},"e":[],"q\\"uote":null,"z":[1,null,"two",{"b":"2026-01-10T00:00:00.000Z"}]}',
    );
    expect(canonicalJson({})).toBe('{}');
    expect(canonicalJson(undefined)).toBe('null');
  });
});
