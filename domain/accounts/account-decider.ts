import { assertNever, type Decider } from '../shared/decider.js';
import { conflict, notFound, validationError } from '../shared/errors.js';
import type {
  AccountCommand,
  ChangeAccountSettings,
  IssueApiKey,
  IssueWebhookSecret,
  OpenAccount,
  RevokeApiKey,
  RotateWebhookSecret,
} from './account-commands.js';
import type {
  AccountEvent,
  AccountOpened,
  AccountSettingsChanged,
  ApiKeyIssued,
  ApiKeyRevoked,
  WebhookSecretIssued,
  WebhookSecretRotated,
} from './account-events.js';
import { isAccountEvent } from './account-events.js';
import { decideDeleteFont, decideDeleteUpload, decideStoreUpload, decideUploadFont } from './asset-decisions.js';
import { decideCreateUrlSigningKey, decideRevokeUrlSigningKey, decideRotateUrlSigningKey } from './url-signing-decisions.js';
import { evolveAccount, initialAccount, type Account } from './account.js';

const requireOpen = (state: Account) => {
  if (state.status !== 'open') throw notFound('Organization');
  return state;
};

export const decideOpenAccount = ({ data }: OpenAccount, state: Account): (AccountOpened | WebhookSecretIssued)[] => {
  if (state.status !== 'absent') throw conflict(`Organization ${data.orgId} already exists`);
  if (data.plan.credits < 0) throw validationError('plan credits must not be negative');
  const opened: AccountOpened = { type: 'AccountOpened', data: { orgId: data.orgId, name: data.name, plan: data.plan, openedAt: data.now } };
  if (data.sealedWebhookSecret === undefined) return [opened];
  return [opened, { type: 'WebhookSecretIssued', data: { orgId: data.orgId, secret: { sealed: data.sealedWebhookSecret }, issuedAt: data.now } }];
};

export const decideIssueApiKey = ({ data }: IssueApiKey, state: Account): ApiKeyIssued[] => {
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
        ...(data.test ? { test: true as const } : {}),
        issuedAt: data.now,
      },
    },
  ];
};

export const decideRevokeApiKey = ({ data }: RevokeApiKey, state: Account): ApiKeyRevoked[] => {
  const key = requireOpen(state).apiKeys.get(data.keyId);
  if (!key) throw notFound('API key');
  if (key.revoked) return [];
  return [{ type: 'ApiKeyRevoked', data: { keyId: data.keyId, revokedAt: data.now } }];
};

/** An account gets one secret; asking again (a retry, two deliveries at once) keeps the first. */
export const decideIssueWebhookSecret = ({ data }: IssueWebhookSecret, state: Account): WebhookSecretIssued[] => {
  const account = requireOpen(state);
  if (account.webhookSecret !== null) return [];
  return [{ type: 'WebhookSecretIssued', data: { orgId: data.orgId, secret: { sealed: data.sealedSecret }, issuedAt: data.now } }];
};

export const decideRotateWebhookSecret = ({ data }: RotateWebhookSecret, state: Account): WebhookSecretRotated[] => {
  const account = requireOpen(state);
  // The same sealed string again is a retried command: sealing twice never gives the same string.
  const current = account.webhookSecret;
  if (current !== null && 'sealed' in current && current.sealed === data.sealedSecret) return [];
  return [{ type: 'WebhookSecretRotated', data: { orgId: data.orgId, secret: { sealed: data.sealedSecret }, rotatedAt: data.now } }];
};

/** Setting what is already set records nothing. */
export const decideChangeAccountSettings = ({ data }: ChangeAccountSettings, state: Account): AccountSettingsChanged[] => {
  const account = requireOpen(state);
  if (account.apiKeyInQuery === data.apiKeyInQuery) return [];
  return [{ type: 'AccountSettingsChanged', data: { apiKeyInQuery: data.apiKeyInQuery, changedAt: data.now } }];
};

export const decideAccount = (command: AccountCommand, state: Account): AccountEvent[] => {
  switch (command.type) {
    case 'OpenAccount':
      return decideOpenAccount(command, state);
    case 'IssueApiKey':
      return decideIssueApiKey(command, state);
    case 'RevokeApiKey':
      return decideRevokeApiKey(command, state);
    case 'IssueWebhookSecret':
      return decideIssueWebhookSecret(command, state);
    case 'RotateWebhookSecret':
      return decideRotateWebhookSecret(command, state);
    case 'UploadFont':
      return decideUploadFont(command, state);
    case 'DeleteFont':
      return decideDeleteFont(command, state);
    case 'StoreUpload':
      return decideStoreUpload(command, state);
    case 'DeleteUpload':
      return decideDeleteUpload(command, state);
    case 'ChangeAccountSettings':
      return decideChangeAccountSettings(command, state);
    case 'CreateUrlSigningKey':
      return decideCreateUrlSigningKey(command, state);
    case 'RotateUrlSigningKey':
      return decideRotateUrlSigningKey(command, state);
    case 'RevokeUrlSigningKey':
      return decideRevokeUrlSigningKey(command, state);
    default:
      return assertNever(command);
  }
};

export const accountDecider: Decider<Account, AccountCommand, AccountEvent> = {
  decide: decideAccount,
  evolve: evolveAccount,
  initialState: initialAccount,
  isEvent: isAccountEvent,
};
