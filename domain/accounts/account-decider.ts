import { assertNever, type Decider } from '../shared/decider.js';
import { conflict, notFound, validationError } from '../shared/errors.js';
import type { AccountCommand, IssueApiKey, OpenAccount, RevokeApiKey } from './account-commands.js';
import type { AccountEvent, AccountOpened, ApiKeyIssued, ApiKeyRevoked } from './account-events.js';
import { evolveAccount, initialAccount, type Account } from './account.js';

const requireOpen = (state: Account) => {
  if (state.status !== 'open') throw notFound('Organization');
  return state;
};

export const openAccount = ({ data }: OpenAccount, state: Account): AccountOpened[] => {
  if (state.status !== 'absent') throw conflict(`Organization ${data.orgId} already exists`);
  if (data.plan.credits < 0) throw validationError('plan credits must not be negative');
  return [{ type: 'AccountOpened', data: { orgId: data.orgId, name: data.name, plan: data.plan, openedAt: data.now } }];
};

export const issueApiKey = ({ data }: IssueApiKey, state: Account): ApiKeyIssued[] => {
  const account = requireOpen(state);
  const existing = account.apiKeys.get(data.keyId);
  // The same key id with the same hash is a retried command: nothing new happened.
  if (existing) {
    if (existing.hash === data.hash) return [];
    throw conflict(`API key ${data.keyId} already exists`);
  }
  if ([...account.apiKeys.values()].some((key) => key.hash === data.hash)) return [];
  if (data.scopes.length === 0) throw validationError('an API key needs at least one scope');
  return [
    {
      type: 'ApiKeyIssued',
      data: {
        keyId: data.keyId,
        label: data.label,
        prefix: data.prefix,
        hash: data.hash,
        scopes: [...data.scopes],
        issuedAt: data.now,
      },
    },
  ];
};

export const revokeApiKey = ({ data }: RevokeApiKey, state: Account): ApiKeyRevoked[] => {
  const key = requireOpen(state).apiKeys.get(data.keyId);
  if (!key) throw notFound('API key');
  if (key.revoked) return [];
  return [{ type: 'ApiKeyRevoked', data: { keyId: data.keyId, revokedAt: data.now } }];
};

export const decideAccount = (command: AccountCommand, state: Account): AccountEvent[] => {
  switch (command.type) {
    case 'OpenAccount':
      return openAccount(command, state);
    case 'IssueApiKey':
      return issueApiKey(command, state);
    case 'RevokeApiKey':
      return revokeApiKey(command, state);
    default:
      return assertNever(command);
  }
};

export const accountDecider: Decider<Account, AccountCommand, AccountEvent> = {
  decide: decideAccount,
  evolve: evolveAccount,
  initialState: initialAccount,
};
