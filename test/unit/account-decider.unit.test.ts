import { describe, it } from 'vitest';
import { accountDecider } from '../../domain/accounts/account-decider.js';
import type { AccountEvent } from '../../domain/accounts/account-events.js';
import { deciderSpec } from '../support/decider-spec.js';

const spec = deciderSpec(accountDecider);
const now = '2026-01-02T03:04:05.000Z';
const plan = { name: 'free', status: 'active', credits: 1000, renewalAmount: 1000, nextRenewalAt: '2026-02-02', uploadsBytes: 100 };
const opened: AccountEvent = { type: 'AccountOpened', data: { orgId: 'org-a', name: 'Acme', plan, openedAt: now } };
const issued: AccountEvent = {
  type: 'ApiKeyIssued',
  data: { keyId: 'k1', label: 'ci', prefix: 'rk_abc', hash: 'h1', scopes: ['render', 'templates', 'audit'], issuedAt: now },
};
const issue = (data: Record<string, unknown> = {}) => ({
  type: 'IssueApiKey' as const,
  data: { orgId: 'org-a', keyId: 'k1', label: 'ci', prefix: 'rk_abc', hash: 'h1', scopes: ['render', 'templates', 'audit'] as const, now, ...data },
});

describe('OpenAccount', () => {
  const open = { type: 'OpenAccount' as const, data: { orgId: 'org-a', name: 'Acme', plan, now } };
  it('opens an account with its plan', () => spec.given([]).when(open).then([opened]));
  it('refuses to open it twice', () => spec.given([opened]).when(open).thenThrows('conflict'));
});

describe('IssueApiKey', () => {
  it('records the hash, never the key', () => spec.given([opened]).when(issue()).then([issued]));
  it('is idempotent for a retried command', () => spec.given([opened, issued]).when(issue()).thenNothingHappens());
  it('is idempotent for the same key under another id', () => spec.given([opened, issued]).when(issue({ keyId: 'k2' })).thenNothingHappens());
  it('refuses a different key under an existing id', () => spec.given([opened, issued]).when(issue({ hash: 'h2' })).thenThrows('conflict'));
  it('needs an open account', () => spec.given([]).when(issue()).thenThrows('not_found'));
  it('needs a scope', () => spec.given([opened]).when(issue({ scopes: [] })).thenThrows('validation'));
});

describe('RevokeApiKey', () => {
  const revoke = (keyId = 'k1') => ({ type: 'RevokeApiKey' as const, data: { orgId: 'org-a', keyId, now } });
  const revoked: AccountEvent = { type: 'ApiKeyRevoked', data: { keyId: 'k1', revokedAt: now } };
  it('revokes an issued key', () => spec.given([opened, issued]).when(revoke()).then([revoked]));
  it('revoking twice records nothing more', () => spec.given([opened, issued, revoked]).when(revoke()).thenNothingHappens());
  it('an unknown key is not found', () => spec.given([opened]).when(revoke('nope')).thenThrows('not_found'));
});
