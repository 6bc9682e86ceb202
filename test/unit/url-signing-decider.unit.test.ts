import { describe, it } from 'vitest';
import { accountDecider } from '../../domain/accounts/account-decider.js';
import type { AccountEvent } from '../../domain/accounts/account-events.js';
import { MAX_ACTIVE_URL_SIGNING_KEYS } from '../../domain/accounts/url-signing-decisions.js';
import { deciderSpec } from '../support/decider-spec.js';

const spec = deciderSpec(accountDecider);
const now = '2026-01-02T03:04:05.000Z';
const plan = { name: 'free', status: 'active', credits: 1000, renewalAmount: 1000, nextRenewalAt: '2026-02-02', uploadsBytes: 100 };
const opened: AccountEvent = { type: 'AccountOpened', data: { orgId: 'org-a', name: 'Acme', plan, openedAt: now } };
const created = (keyId = 'k1', sealed = 'v1:s1'): AccountEvent => ({ type: 'UrlSigningKeyCreated', data: { keyId, secret: { sealed }, createdAt: now } });
const rotated: AccountEvent = { type: 'UrlSigningKeyRotated', data: { keyId: 'k1', secret: { sealed: 'v1:s2' }, rotatedAt: now } };
const revoked: AccountEvent = { type: 'UrlSigningKeyRevoked', data: { keyId: 'k1', revokedAt: now } };

const create = (keyId = 'k1', sealedSecret = 'v1:s1') => ({ type: 'CreateUrlSigningKey' as const, data: { orgId: 'org-a', keyId, sealedSecret, now } });
const rotate = (keyId = 'k1', sealedSecret = 'v1:s2') => ({ type: 'RotateUrlSigningKey' as const, data: { orgId: 'org-a', keyId, sealedSecret, now } });
const revoke = (keyId = 'k1') => ({ type: 'RevokeUrlSigningKey' as const, data: { orgId: 'org-a', keyId, now } });

describe('CreateUrlSigningKey', () => {
  it('records the sealed secret', () => spec.given([opened]).when(create()).then([created()]));
  it('is idempotent for a retried command', () => spec.given([opened, created()]).when(create()).thenNothingHappens());
  it('refuses another secret under an existing id', () => spec.given([opened, created()]).when(create('k1', 'v1:other')).thenThrows('conflict'));
  it('needs an open account', () => spec.given([]).when(create()).thenThrows('not_found'));
  it(`allows ${MAX_ACTIVE_URL_SIGNING_KEYS} active keys, revoked ones not counted`, () => {
    const keys = Array.from({ length: MAX_ACTIVE_URL_SIGNING_KEYS }, (_, index) => created(`k${index + 1}`, `v1:s${index + 1}`));
    spec.given([opened, ...keys]).when(create('k-next', 'v1:next')).thenThrows('validation', /at most 10/);
    spec.given([opened, ...keys, revoked]).when(create('k-next', 'v1:next')).then([created('k-next', 'v1:next')]);
  });
});

describe('RotateUrlSigningKey', () => {
  it('puts a new secret under the same id', () => spec.given([opened, created()]).when(rotate()).then([rotated]));
  it('is idempotent for a retried command', () => spec.given([opened, created(), rotated]).when(rotate()).thenNothingHappens());
  it("an unknown key is not found, nor is another organization's", () => spec.given([opened]).when(rotate('nope')).thenThrows('not_found'));
  it('refuses to bring a revoked key back', () => spec.given([opened, created(), revoked]).when(rotate()).thenThrows('conflict', /revoked/));
});

describe('RevokeUrlSigningKey', () => {
  it('revokes a key', () => spec.given([opened, created()]).when(revoke()).then([revoked]));
  it('revoking twice records nothing more', () => spec.given([opened, created(), revoked]).when(revoke()).thenNothingHappens());
  it('an unknown key is not found', () => spec.given([opened]).when(revoke('nope')).thenThrows('not_found'));
});

describe('ChangeAccountSettings', () => {
  const change = (apiKeyInQuery: boolean) => ({ type: 'ChangeAccountSettings' as const, data: { orgId: 'org-a', apiKeyInQuery, now } });
  const turnedOff: AccountEvent = { type: 'AccountSettingsChanged', data: { apiKeyInQuery: false, changedAt: now } };
  it('turns API keys in query strings off', () => spec.given([opened]).when(change(false)).then([turnedOff]));
  it('records nothing when the setting is already so (on by default)', () => {
    spec.given([opened]).when(change(true)).thenNothingHappens();
    spec.given([opened, turnedOff]).when(change(false)).thenNothingHappens();
  });
  it('turns them on again', () =>
    spec.given([opened, turnedOff]).when(change(true)).then([{ type: 'AccountSettingsChanged', data: { apiKeyInQuery: true, changedAt: now } }]));
  it('needs an open account', () => spec.given([]).when(change(false)).thenThrows('not_found'));
});
