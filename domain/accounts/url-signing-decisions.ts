import { conflict, notFound, validationError } from '../shared/errors.js';
import type { CreateUrlSigningKey, RevokeUrlSigningKey, RotateUrlSigningKey } from './url-signing-commands.js';
import type { UrlSigningKeyCreated, UrlSigningKeyRevoked, UrlSigningKeyRotated } from './url-signing-events.js';
import type { Account, OpenAccountState } from './account.js';

/** Enough for overlapping rotations across a few sites; every key is a secret the service keeps and checks. */
export const MAX_ACTIVE_URL_SIGNING_KEYS = 10;

const requireOpen = (state: Account): OpenAccountState => {
  if (state.status !== 'open') throw notFound('Organization');
  return state;
};

const activeKeyCount = (account: OpenAccountState): number => [...account.urlSigningKeys.values()].filter((key) => !key.revoked).length;

export const decideCreateUrlSigningKey = ({ data }: CreateUrlSigningKey, state: Account): UrlSigningKeyCreated[] => {
  const account = requireOpen(state);
  const existing = account.urlSigningKeys.get(data.keyId);
  // The same id with the same sealed secret is a retried command: sealing twice never gives the same string.
  if (existing) {
    if (existing.sealedSecret === data.sealedSecret) return [];
    throw conflict(`URL-signing key ${data.keyId} already exists`);
  }
  if (activeKeyCount(account) >= MAX_ACTIVE_URL_SIGNING_KEYS) {
    throw validationError(`An organization may have at most ${MAX_ACTIVE_URL_SIGNING_KEYS} URL-signing keys`, [
      `${MAX_ACTIVE_URL_SIGNING_KEYS} keys are active; revoke one before creating another`,
    ]);
  }
  return [{ type: 'UrlSigningKeyCreated', data: { keyId: data.keyId, secret: { sealed: data.sealedSecret }, createdAt: data.now } }];
};

export const decideRotateUrlSigningKey = ({ data }: RotateUrlSigningKey, state: Account): UrlSigningKeyRotated[] => {
  const key = requireOpen(state).urlSigningKeys.get(data.keyId);
  if (!key) throw notFound('URL-signing key');
  if (key.sealedSecret === data.sealedSecret) return [];
  // A revoked identifier stays dead: bringing it back would revive every URL naming it.
  if (key.revoked) throw conflict(`URL-signing key ${data.keyId} is revoked; create a new one`);
  return [{ type: 'UrlSigningKeyRotated', data: { keyId: data.keyId, secret: { sealed: data.sealedSecret }, rotatedAt: data.now } }];
};

export const decideRevokeUrlSigningKey = ({ data }: RevokeUrlSigningKey, state: Account): UrlSigningKeyRevoked[] => {
  const key = requireOpen(state).urlSigningKeys.get(data.keyId);
  if (!key) throw notFound('URL-signing key');
  if (key.revoked) return [];
  return [{ type: 'UrlSigningKeyRevoked', data: { keyId: data.keyId, revokedAt: data.now } }];
};
