import { describe, expect, it } from 'vitest';
import { accountDecider } from '../../domain/accounts/account-decider.js';
import type { AccountEvent } from '../../domain/accounts/account-events.js';
import { addMonth, renewalAfter } from '../../domain/accounts/billing-period.js';
import { renderCost } from '../../domain/renders/pricing.js';
import { canonicalJson } from '../../domain/shared/canonical-json.js';
import { deciderSpec } from '../support/decider-spec.js';

const spec = deciderSpec(accountDecider);
const now = '2026-01-10T00:00:00.000Z';
const plan = { name: 'free', status: 'active', credits: 10, renewalAmount: 10, nextRenewalAt: '2026-02-01', uploadsBytes: 100 };
const opened: AccountEvent = { type: 'AccountOpened', data: { orgId: 'org-a', name: 'Acme', plan, openedAt: now } };
const charge = (requestId: string, amount: number, at = now) => ({ type: 'ChargeCredits' as const, data: { orgId: 'org-a', requestId, amount, now: at } });
const charged = (requestId: string, amount: number, at = now): AccountEvent => ({ type: 'CreditsCharged', data: { requestId, amount, chargedAt: at } });

describe('ChargeCredits', () => {
  it('charges a request', () => spec.given([opened]).when(charge('r1', 3)).then([charged('r1', 3)]));
  it('charges a request id once, however often it is retried', () => spec.given([opened, charged('r1', 3)]).when(charge('r1', 3)).thenNothingHappens());
  it('charges nothing for a free (cached) render', () => spec.given([opened]).when(charge('r1', 0)).thenNothingHappens());
  it('refuses a charge beyond the balance with payment_required', () =>
    spec.given([opened, charged('r1', 8)]).when(charge('r2', 3)).thenThrows('payment_required'));
  it('renews a period that is due before charging', () =>
    spec
      .given([opened, charged('r1', 10)])
      .when(charge('r2', 4, '2026-03-15T00:00:00.000Z'))
      .then([
        { type: 'CreditsRenewed', data: { credits: 10, periodStartedAt: '2026-03-15T00:00:00.000Z', nextRenewalAt: '2026-04-01' } },
        charged('r2', 4, '2026-03-15T00:00:00.000Z'),
      ]));
});

describe('RefundCredits', () => {
  const refund = (requestId: string) => ({ type: 'RefundCredits' as const, data: { orgId: 'org-a', requestId, now } });
  const refunded: AccountEvent = { type: 'CreditsRefunded', data: { requestId: 'r1', amount: 3, refundedAt: now } };
  it('gives back what the request was charged', () => spec.given([opened, charged('r1', 3)]).when(refund('r1')).then([refunded]));
  it('refunds once', () => spec.given([opened, charged('r1', 3), refunded]).when(refund('r1')).thenNothingHappens());
  it('refunds nothing that was never charged', () => spec.given([opened]).when(refund('r9')).thenNothingHappens());
  it('makes the credits usable again', () => spec.given([opened, charged('r1', 10), refunded]).when(charge('r2', 3)).then([charged('r2', 3)]));

  describe('deep in a busy account', () => {
    const big = { ...opened, data: { ...opened.data, plan: { ...plan, credits: 1_000_000 } } } as AccountEvent;
    const history = [big, ...Array.from({ length: 20_000 }, (_, i) => charged(`b${i}`, 1)), { type: 'CreditsRefunded', data: { requestId: 'b7', amount: 1, refundedAt: now } } as AccountEvent];
    it('still recognises an old charge', () => spec.given(history).when(charge('b3', 1)).thenNothingHappens());
    it('still refunds an old charge once, with its amount', () =>
      spec.given(history).when(refund('b11')).then([{ type: 'CreditsRefunded', data: { requestId: 'b11', amount: 1, refundedAt: now } }]));
    it('still knows an old refund', () => spec.given(history).when(refund('b7')).thenNothingHappens());
  });
});

describe('pricing and billing periods', () => {
  it('costs 1 credit per image or PDF, 10 per started video second, 0 when cached', () => {
    expect(renderCost('jpeg', null, false)).toBe(1);
    expect(renderCost('pdf', null, false)).toBe(1);
    expect(renderCost('mp4', 1000, false)).toBe(10);
    expect(renderCost('webm', 1001, false)).toBe(20);
    expect(renderCost('mp4', 30000, false)).toBe(300);
    expect(renderCost('png', null, true)).toBe(0);
  });

  it('steps months and clamps to the last day', () => {
    expect(addMonth('2026-01-31')).toBe('2026-02-28');
    expect(addMonth('2026-12-15')).toBe('2027-01-15');
    expect(renewalAfter('2026-01-01', '2026-03-01')).toBe('2026-04-01');
    expect(renewalAfter('2026-05-01', '2026-03-01')).toBe('2026-05-01');
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
