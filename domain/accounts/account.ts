import { assertNever } from '../shared/decider.js';
import { recordMovement, type CreditMovements, usageAfterRefund } from './credit-movements.js';
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
  readonly plan: Plan;
  readonly apiKeys: ReadonlyMap<string, ApiKeyState>;
  /** Credits used in the current billing period. */
  readonly creditsUsed: number;
  /** Charges and refunds per request id, kept so a retried charge or refund is recognised. */
  readonly movements: CreditMovements | null;
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

export const creditsLeft = (account: OpenAccountState): number => account.plan.credits - account.creditsUsed;

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
      creditsUsed: 0,
      movements: null,
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
    case 'CreditsCharged':
      return {
        ...state,
        creditsUsed: state.creditsUsed + event.data.amount,
        movements: recordMovement(state.movements, { requestId: event.data.requestId, kind: 'charged', amount: event.data.amount }),
      };
    case 'CreditsRefunded':
      return {
        ...state,
        creditsUsed: usageAfterRefund(state.creditsUsed, event.data.amount),
        movements: recordMovement(state.movements, { requestId: event.data.requestId, kind: 'refunded', amount: event.data.amount }),
      };
    case 'CreditsRenewed':
      return {
        ...state,
        creditsUsed: 0,
        plan: { ...state.plan, credits: event.data.credits, nextRenewalAt: event.data.nextRenewalAt },
      };
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
