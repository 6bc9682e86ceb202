import { eventGuard, type DomainEvent } from '../shared/events.js';
import type { CreditsCharged, CreditsRefunded } from '../ledger/ledger-events.js';
import type { AssetEvent } from './asset-events.js';
import type { UrlSigningEvent } from './url-signing-events.js';

const ACCOUNT_STREAM_PREFIX = 'account-';

export const accountStream = (orgId: string) => `${ACCOUNT_STREAM_PREFIX}${orgId}`;

/** The organization an account stream belongs to; null for any other stream. */
export const orgIdOfStream = (streamName: string): string | null =>
  streamName.startsWith(ACCOUNT_STREAM_PREFIX) ? streamName.slice(ACCOUNT_STREAM_PREFIX.length) : null;

/**
 * render: renders, captures and their results; templates: templates, uploads and fonts; audit: replays
 * of the log; admin: the account itself (URL-signing keys and signed URLs, settings, the webhook secret).
 * A key put in public URLs should carry render alone.
 */
export const API_KEY_SCOPES = ['render', 'templates', 'audit', 'admin'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export interface Plan {
  readonly name: string;
  readonly status: string;
  /** Credits of the first billing period, up to `nextRenewalAt`; each later period allows `renewalAmount`. */
  readonly credits: number;
  readonly renewalAmount: number;
  /** yyyy-MM-dd */
  readonly nextRenewalAt: string;
  readonly uploadsBytes: number;
}

export type AccountOpened = DomainEvent<
  'AccountOpened',
  { orgId: string; name: string; plan: Plan; openedAt: string }
>;

export type ApiKeyIssued = DomainEvent<
  'ApiKeyIssued',
  {
    keyId: string;
    label: string;
    /** First characters of the key, shown in listings so a person can tell keys apart. */
    prefix: string;
    /** SHA-256 of the key, hex. The key itself is never stored. */
    hash: string;
    scopes: ApiKeyScope[];
    /**
     * A test key, for building an integration without paying for it: what it renders or captures is
     * free, watermarked TEST, flagged `test`, kept a day and left out of usage. Absent on live keys.
     */
    test?: true;
    issuedAt: string;
  }
>;

export type ApiKeyRevoked = DomainEvent<'ApiKeyRevoked', { keyId: string; revokedAt: string }>;

/**
 * A new billing period: used credits start again from zero. Logs written before ledgers had
 * streams of their own hold it, and charges and refunds, in the account's stream; they are still
 * folded, never written there again.
 */
export type CreditsRenewed = DomainEvent<
  'CreditsRenewed',
  { credits: number; periodStartedAt: string; nextRenewalAt: string }
>;

/**
 * A secret the service must be able to read back, as the log keeps it: sealed by the application
 * (encrypted with a key the log does not hold), or in the clear in events written before secrets
 * were sealed. New events carry only sealed ones; the domain compares them but never opens them.
 */
export type StoredSecret = { readonly sealed: string } | { readonly plain: string };

/**
 * The key webhooks to this organization are signed with (HMAC-SHA256). Kept in the event because
 * signing needs the secret itself, not a digest; it is shown to the organization on request.
 */
export type WebhookSecretIssued = DomainEvent<'WebhookSecretIssued', { orgId: string; secret: StoredSecret; issuedAt: string }>;

/** A new webhook secret replaces the current one; the old one still signs for a grace period. */
export type WebhookSecretRotated = DomainEvent<'WebhookSecretRotated', { orgId: string; secret: StoredSecret; rotatedAt: string }>;

/**
 * `apiKeyInQuery`: whether GET /img takes the API key from its query string (`?apiKey=`), the spec's
 * form and the default. An organization that publishes image URLs only signed turns it off, so a
 * key that leaked into a page's source no longer renders from a URL.
 */
export type AccountSettingsChanged = DomainEvent<'AccountSettingsChanged', { apiKeyInQuery: boolean; changedAt: string }>;

export type AccountEvent =
  | AccountOpened
  | ApiKeyIssued
  | ApiKeyRevoked
  | CreditsCharged
  | CreditsRefunded
  | CreditsRenewed
  | WebhookSecretIssued
  | WebhookSecretRotated
  | AccountSettingsChanged
  | AssetEvent
  | UrlSigningEvent;

export const isAccountEvent = eventGuard<AccountEvent>({
  AccountOpened: true,
  ApiKeyIssued: true,
  ApiKeyRevoked: true,
  CreditsCharged: true,
  CreditsRefunded: true,
  CreditsRenewed: true,
  WebhookSecretIssued: true,
  WebhookSecretRotated: true,
  FontUploaded: true,
  FontDeleted: true,
  UploadStored: true,
  UploadDeleted: true,
  AccountSettingsChanged: true,
  UrlSigningKeyCreated: true,
  UrlSigningKeyRotated: true,
  UrlSigningKeyRevoked: true,
});
