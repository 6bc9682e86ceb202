import { describe, expect, it } from 'vitest';
import { accountStream, type AccountOpened } from '../../domain/accounts/account-events.js';
import { renderStream } from '../../domain/renders/render-events.js';
import { accountRowChangedBy, accountsProjection } from '../../infrastructure/projections/accounts-projection.js';
import { AccountRow, ApiKeyRow, StoredFileRow, UrlSigningKeyRow } from '../../infrastructure/read-models/entities.js';
import type { DocumentSource } from '../../infrastructure/projections/document-projection.js';
import { foldBatch } from '../../infrastructure/projections/memory-tables.js';
import { on, projectionSpec, recorder, rows } from '../support/projection-spec.js';
import { renderCompleted } from '../support/render-events.js';

const orgId = 'org-1';
const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
const spec = () => projectionSpec(accountsProjection, { orgId });
const account = (event: Parameters<typeof on>[1]) => on(accountStream(orgId), event);

const opened = account({
  type: 'AccountOpened',
  data: { orgId, name: 'Org', plan: { name: 'pro', status: 'active', credits: 100, renewalAmount: 100, nextRenewalAt: '2026-02-01', uploadsBytes: 10_000 }, openedAt: at(0) },
} satisfies AccountOpened);

const openedRow: AccountRow = {
  orgId,
  name: 'Org',
  planName: 'pro',
  planStatus: 'active',
  creditsTotal: 100,
  creditsUsed: 0,
  renewalAmount: 100,
  nextRenewalAt: '2026-02-01',
  uploadsUsed: 0,
  assetsBytes: 0,
  assetsVersion: 0,
  apiKeyInQuery: true,
  uploadsTotal: 10_000,
  createdAt: new Date(at(0)),
};

const charged = (requestId: string, amount: number) => account({ type: 'CreditsCharged', data: { requestId, amount, chargedAt: at(1) } });
const refunded = (requestId: string, amount: number) => account({ type: 'CreditsRefunded', data: { requestId, amount, refundedAt: at(2) } });
const completed = (requestId: string, bytes: number, cached = false) =>
  on(renderStream(requestId), renderCompleted({ requestId, completedAt: at(3), bytes, cached, sourceRequestId: cached ? 'r1' : null }));
const deleted = (requestId: string) => on(renderStream(requestId), { type: 'ResultDeleted', data: { requestId, deletedAt: at(4) } });

describe('accounts projection', () => {
  it('counts charges and refunds, a refund never taking usage below zero', async () => {
    await spec()
      .given(opened, charged('r1', 5), charged('r2', 3))
      .when(refunded('r2', 3), account({ type: 'CreditsRenewed', data: { credits: 200, periodStartedAt: at(5), nextRenewalAt: '2026-03-01' } }), refunded('r1', 5))
      .then(rows(AccountRow, [{ ...openedRow, creditsUsed: 0, creditsTotal: 200, nextRenewalAt: '2026-03-01' }]));
  });

  it('keeps API keys and marks revoked ones', async () => {
    const issued = (keyId: string) => account({ type: 'ApiKeyIssued', data: { keyId, label: keyId, prefix: 'rk_', hash: `hash-${keyId}`, scopes: ['render'], issuedAt: at(1) } });
    const key = (id: string, revoked: boolean): ApiKeyRow => ({ id, orgId, hash: `hash-${id}`, prefix: 'rk_', label: id, scopes: ['render'], test: false, revoked, createdAt: new Date(at(1)) });
    await spec()
      .given(opened, issued('k1'), issued('k2'))
      .when(account({ type: 'ApiKeyRevoked', data: { keyId: 'k1', revokedAt: at(2) } }))
      .then(rows(AccountRow, [openedRow]), rows(ApiKeyRow, [key('k1', true), key('k2', false)]));
  });

  it('keeps URL-signing keys with their sealed secret, the newest after a rotation, and when they were revoked', async () => {
    const created = (keyId: string) => account({ type: 'UrlSigningKeyCreated', data: { keyId, secret: { sealed: `sealed-${keyId}` }, createdAt: at(1) } });
    await spec()
      .given(opened, created('s1'), created('s2'))
      .when(
        account({ type: 'UrlSigningKeyRotated', data: { keyId: 's1', secret: { sealed: 'sealed-s1-rotated' }, rotatedAt: at(2) } }),
        account({ type: 'UrlSigningKeyRevoked', data: { keyId: 's2', revokedAt: at(3) } }),
      )
      .then(
        rows(AccountRow, [openedRow]),
        rows(UrlSigningKeyRow, [
          { id: 's1', orgId, sealedSecret: 'sealed-s1-rotated', createdAt: new Date(at(1)), rotatedAt: new Date(at(2)), revokedAt: null },
          { id: 's2', orgId, sealedSecret: 'sealed-s2', createdAt: new Date(at(1)), rotatedAt: null, revokedAt: new Date(at(3)) },
        ]),
      );
  });

  it('follows the setting for API keys in query strings', async () => {
    await spec()
      .given(opened)
      .when(account({ type: 'AccountSettingsChanged', data: { apiKeyInQuery: false, changedAt: at(1) } }))
      .then(rows(AccountRow, [{ ...openedRow, apiKeyInQuery: false }]));
  });

  it('counts the bytes of stored files in uploads; a cache hit stores none; a deletion gives them back', async () => {
    await spec()
      .given(opened, completed('r1', 1000), completed('r2', 300), completed('hit', 1000, true))
      .when(deleted('r1'), deleted('hit'))
      .then(rows(AccountRow, [{ ...openedRow, uploadsUsed: 300 }]), rows(StoredFileRow, [{ requestId: 'r2', orgId, bytes: 300 }]));
  });

  it('gives the bytes back within the batch that stored them', async () => {
    await spec().given(opened).when(completed('r1', 1000), deleted('r1')).then(rows(AccountRow, [openedRow]));
  });

  it('counts no file for an organization without an account', async () => {
    await spec().given().when(completed('r1', 1000), deleted('r1')).then();
  });

  it('reads no stored-file row for a completion that stores a file, and reads the one a deletion takes back', async () => {
    const loaded: string[] = [];
    const source: DocumentSource = {
      load: async (entity, ids) => {
        loaded.push(...ids.map((id) => `${entity === StoredFileRow ? 'file' : 'account'}:${id}`));
        return new Map(entity === AccountRow ? [[orgId, openedRow]] : []);
      },
      find: async () => new Map(),
    };
    const recorded = recorder(orgId);
    const changes = await foldBatch(accountsProjection, [completed('r1', 1000), deleted('r0')].map(recorded), source);
    expect(loaded.sort()).toEqual(['account:org-1', 'file:r0']);
    expect(changes.find((change) => change.entity === StoredFileRow)?.upserts.get('r1')).toEqual({ requestId: 'r1', orgId, bytes: 1000 });
  });

  it('tells caches whose account row an event changes: none for a cache hit, every row for a deletion', () => {
    const recorded = recorder(orgId);
    expect(accountRowChangedBy(recorded(charged('r1', 5)))).toBe(orgId);
    expect(accountRowChangedBy(recorded(completed('r1', 1000)))).toBe(orgId);
    expect(accountRowChangedBy(recorded(completed('hit', 1000, true)))).toBeNull();
    expect(accountRowChangedBy(recorded(deleted('r1')))).toBe('all');
    expect(accountRowChangedBy(recorded(on(renderStream('r1'), { type: 'RenderFailed', data: { requestId: 'r1', reason: 'x', failedAt: at(1) } })))).toBeNull();
  });
});
