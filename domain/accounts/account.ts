import { assertNever } from '../shared/decider.js';
import { NO_EARLIER_CREDITS, type EarlierCredits } from '../ledger/ledger-commands.js';
import type { BillingPeriod } from '../ledger/billing-period.js';
import { recordMovement, type CreditMovements, usageAfterRefund } from '../ledger/credit-movements.js';
import type { AccountEvent, ApiKeyScope, Plan, StoredSecret } from './account-events.js';

export interface ApiKeyState {
  readonly keyId: string;
  readonly hash: string;
  readonly scopes: readonly ApiKeyScope[];
  readonly revoked: boolean;
}

/** A URL-signing key as its decisions need it: the sealed secret tells a retried command from a new one. */
export interface UrlSigningKeyState {
  readonly sealedSecret: string;
  readonly revoked: boolean;
}

/** A font or image of the organization's, as much as the quota needs to know of it. */
export interface AssetState {
  readonly kind: 'font' | 'image';
  readonly bytes: number;
}

export interface OpenAccountState {
  readonly status: 'open';
  readonly orgId: string;
  readonly name: string;
  /** As the account was opened with: billing periods are counted from its first renewal date. */
  readonly plan: Plan;
  readonly apiKeys: ReadonlyMap<string, ApiKeyState>;
  /**
   * Credits as this stream recorded them before ledgers had streams of their own (ledger-events.ts):
   * the period they were last in, what it used, and every charge and refund. New logs keep none here.
   */
  readonly recordedCredits: { readonly endsAt: string; readonly used: number; readonly movements: CreditMovements | null };
  /** Signs webhooks; null for accounts opened before webhook secrets existed, until one is issued. */
  readonly webhookSecret: StoredSecret | null;
  /** The secret a rotation replaced, and when: it keeps signing alongside the new one for a grace period. */
  readonly previousWebhookSecret: { readonly secret: StoredSecret; readonly rotatedAt: string } | null;
  /** Uploaded fonts and images by id; deleted ones are gone. */
  readonly assets: ReadonlyMap<string, AssetState>;
  /** Keys that sign GET /img URLs, by identifier; revoked ones stay, so their identifiers are never reused. */
  readonly urlSigningKeys: ReadonlyMap<string, UrlSigningKeyState>;
  /** Whether GET /img takes the API key from its query string (the spec's form); on until turned off. */
  readonly apiKeyInQuery: boolean;
}

export type Account = { readonly status: 'absent' } | OpenAccountState;

export const initialAccount = (): Account => ({ status: 'absent' });

/** What this stream recorded of credits, as the books of `period` take it over. */
export const earlierCredits = (account: OpenAccountState, period: BillingPeriod): EarlierCredits => {
  const recorded = account.recordedCredits;
  if (recorded.movements === null) return NO_EARLIER_CREDITS;
  return { used: recorded.endsAt === period.endsAt ? recorded.used : 0, movements: recorded.movements };
};

/** Bytes of upload storage the organization's fonts and images take. */
export const assetBytes = (account: OpenAccountState): number => [...account.assets.values()].reduce((total, asset) => total + asset.bytes, 0);

const withAsset = (state: OpenAccountState, id: string, asset: AssetState | null): OpenAccountState => {
  const assets = new Map(state.assets);
  if (asset) assets.set(id, asset);
  else assets.delete(id);
  return { ...state, assets };
};

export const evolveAccount = (state: Account, event: AccountEvent): Account => {
  if (event.type === 'AccountOpened') {
    const { orgId, name, plan } = event.data;
    return {
      status: 'open',
      orgId,
      name,
      plan,
      apiKeys: new Map(),
      recordedCredits: { endsAt: plan.nextRenewalAt, used: 0, movements: null },
      webhookSecret: null,
      previousWebhookSecret: null,
      assets: new Map(),
      urlSigningKeys: new Map(),
      apiKeyInQuery: true,
    };
  }
  if (state.status !== 'open') return state;
  switch (event.type) {
    case 'ApiKeyIssued': {
      const { keyId, hash, scopes } = event.data;
      return { ...state, apiKeys: new Map(state.apiKeys).set(keyId, { keyId, hash, scopes, revoked: false }) };
    }
    case 'ApiKeyRevoked': {
      const key = state.apiKeys.get(event.data.keyId);
      if (!key) return state;
      return { ...state, apiKeys: new Map(state.apiKeys).set(key.keyId, { ...key, revoked: true }) };
    }
    case 'CreditsCharged': {
      const recorded = state.recordedCredits;
      const movements = recordMovement(recorded.movements, { requestId: event.data.requestId, kind: 'charged', amount: event.data.amount });
      return { ...state, recordedCredits: { ...recorded, used: recorded.used + event.data.amount, movements } };
    }
    case 'CreditsRefunded': {
      const recorded = state.recordedCredits;
      const movements = recordMovement(recorded.movements, { requestId: event.data.requestId, kind: 'refunded', amount: event.data.amount });
      return { ...state, recordedCredits: { ...recorded, used: usageAfterRefund(recorded.used, event.data.amount), movements } };
    }
    case 'CreditsRenewed':
      return { ...state, recordedCredits: { ...state.recordedCredits, endsAt: event.data.nextRenewalAt, used: 0 } };
    case 'WebhookSecretIssued':
      return { ...state, webhookSecret: event.data.secret };
    case 'WebhookSecretRotated':
      return {
        ...state,
        webhookSecret: event.data.secret,
        previousWebhookSecret: state.webhookSecret === null ? null : { secret: state.webhookSecret, rotatedAt: event.data.rotatedAt },
      };
    case 'FontUploaded':
      return withAsset(state, event.data.fontId, { kind: 'font', bytes: event.data.bytes });
    case 'UploadStored':
      return withAsset(state, event.data.uploadId, { kind: 'image', bytes: event.data.bytes });
    case 'FontDeleted':
      return withAsset(state, event.data.fontId, null);
    case 'UploadDeleted':
      return withAsset(state, event.data.uploadId, null);
    case 'AccountSettingsChanged':
      return { ...state, apiKeyInQuery: event.data.apiKeyInQuery };
    case 'UrlSigningKeyCreated':
    case 'UrlSigningKeyRotated':
      return { ...state, urlSigningKeys: new Map(state.urlSigningKeys).set(event.data.keyId, { sealedSecret: event.data.secret.sealed, revoked: false }) };
    case 'UrlSigningKeyRevoked': {
      const key = state.urlSigningKeys.get(event.data.keyId);
      if (!key) return state;
      return { ...state, urlSigningKeys: new Map(state.urlSigningKeys).set(event.data.keyId, { ...key, revoked: true }) };
    }
    default:
      return assertNever(event);
  }
};
