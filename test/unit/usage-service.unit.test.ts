import { describe, expect, it } from 'vitest';
import { createUsageService } from '../../application/accounts/usage-service.js';
import type { AccountReadModel, AccountView } from '../../application/ports/read-models.js';
import { API_KEY_SCOPES } from '../../domain/accounts/account-events.js';

const account: AccountView = {
  orgId: 'org-1',
  name: 'Acme',
  planName: 'pro',
  planStatus: 'active',
  creditsTotal: 500,
  creditsUsed: 120,
  renewalAmount: 400,
  nextRenewalAt: '2026-03-15',
  uploadsUsed: 2048,
  assetsBytes: 0,
  assetsVersion: 0,
  apiKeyInQuery: true,
  uploadsTotal: 1_000_000,
};

const usageOn = (today: string) =>
  createUsageService({
    accounts: { getAccount: async (orgId: string) => (orgId === account.orgId ? account : null) } as AccountReadModel,
    clock: { now: () => new Date(`${today}T12:00:00Z`) },
  });

const context = (orgId: string) => ({ caller: { orgId, actor: 'key-1', scopes: API_KEY_SCOPES }, correlationId: 'c' });

describe('usage summary', () => {
  it('reports the current period as projected', async () => {
    expect(await usageOn('2026-03-01').get(context('org-1'))).toEqual({
      identifier: 'org-1',
      credits: { used: 120, total: 500, nextRenewalAt: '2026-03-15', renewalAmount: 400 },
      uploads: { used: 2048, total: 1_000_000 },
      plan: { name: 'pro', status: 'active', nextBillingAt: '2026-03-15' },
    });
  });

  it('shows a period that ended but was not renewed yet (no charge since) as the renewal will make it', async () => {
    const usage = await usageOn('2026-05-20').get(context('org-1'));
    expect(usage.credits).toEqual({ used: 0, total: 400, nextRenewalAt: '2026-06-15', renewalAmount: 400 });
    expect(usage.plan.nextBillingAt).toBe('2026-06-15');
  });

  it('answers 404 for an organization without an account', async () => {
    await expect(usageOn('2026-03-01').get(context('org-2'))).rejects.toMatchObject({ code: 'not_found' });
  });
});
