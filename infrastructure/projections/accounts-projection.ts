import { isAccountEvent, orgIdOfStream, type AccountEvent } from '../../domain/accounts/account-events.js';
import { evolveCreditBalance } from '../../domain/ledger/credit-balance.js';
import { isLedgerEvent, ledgerOfStream, type LedgerEvent } from '../../domain/ledger/ledger-events.js';
import type { UrlSigningEvent } from '../../domain/accounts/url-signing-events.js';
import { isRenderEvent, type RenderCompleted, type ResultDeleted } from '../../domain/renders/render-events.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import { AccountRow, ApiKeyRow, StoredFileRow, UrlSigningKeyRow } from '../read-models/entities.js';
import { fold, type DocumentProjection } from './document-projection.js';

/** Render events that change uploads: a file stored, a result deleted. */
type UploadEvent = RenderCompleted | ResultDeleted;

export type AccountsProjectionEvent = AccountEvent | LedgerEvent | UploadEvent;

const isAccountsProjectionEvent = (event: RecordedEvent): event is RecordedEvent<AccountsProjectionEvent> =>
  isAccountEvent(event) || isLedgerEvent(event) || (isRenderEvent(event) && (event.type === 'RenderCompleted' || event.type === 'ResultDeleted'));

/** A cache hit's completion stores no file: only the render that stored one counts (and its deletion takes it back). */
const storesFile = (event: RecordedEvent<AccountsProjectionEvent>): event is RecordedEvent<RenderCompleted> =>
  event.type === 'RenderCompleted' && !event.data.cached;

const KEY_AND_SECRET_EVENTS = new Set([
  'ApiKeyIssued',
  'ApiKeyRevoked',
  'WebhookSecretIssued',
  'WebhookSecretRotated',
  'UrlSigningKeyCreated',
  'UrlSigningKeyRotated',
  'UrlSigningKeyRevoked',
] as const);
type KeyOrSecretEvent = Extract<AccountsProjectionEvent, { type: typeof KEY_AND_SECRET_EVENTS extends Set<infer T> ? T : never }>;

/** Keys and secrets have rows of their own: the account's row stays as it is. */
const isKeyOrSecretEvent = (event: RecordedEvent<AccountsProjectionEvent>): event is RecordedEvent<KeyOrSecretEvent> =>
  (KEY_AND_SECRET_EVENTS as ReadonlySet<string>).has(event.type);

/**
 * The account whose row an event changes, if any: a stored file's is its request's organization's,
 * which its deletion gives the bytes back to; an account or ledger event's is its stream's, unless it is about a key or a secret.
 */
const accountOf = (event: RecordedEvent<AccountsProjectionEvent>, stored: StoredFileRow | null): string | null => {
  if (event.type === 'RenderCompleted') return storesFile(event) ? event.metadata.orgId : null;
  if (event.type === 'ResultDeleted') return stored?.orgId ?? null;
  if (isKeyOrSecretEvent(event)) return null;
  return orgIdOfStream(event.streamName) ?? ledgerOfStream(event.streamName)?.orgId ?? null;
};

/**
 * Whose account row an event may change, for caches of those rows to evict: the row the account
 * fold names (`accountOf`), or `all` for a deletion, whose bytes go back to the account that stored
 * the file, known only from a stored-file row the cache does not have. A cache hit, a key or a
 * secret changes none and evicts nothing: hits are the most frequent event of all, and evicting on
 * them would empty the cache as fast as it fills.
 */
export const accountRowChangedBy = (event: RecordedEvent): string | 'all' | null => {
  if (!isAccountsProjectionEvent(event)) return null;
  return event.type === 'ResultDeleted' ? 'all' : accountOf(event, null);
};

/**
 * An organization's account. Uploads used = bytes of its stored, undeleted files: a completion that
 * stored a file adds its bytes (render completions are recorded in the context of the request's
 * organization), a deletion takes back what the stored-file row kept; uploaded fonts and images
 * add theirs and their deletions (which carry the bytes) take them back.
 */
export const evolveAccountRow = (row: AccountRow | null, event: RecordedEvent<AccountsProjectionEvent>, stored: StoredFileRow | null): AccountRow | null => {
  switch (event.type) {
    case 'AccountOpened': {
      const orgId = orgIdOfStream(event.streamName);
      if (orgId === null) return row;
      const { plan, name, openedAt } = event.data;
      return {
        orgId,
        name,
        planName: plan.name,
        planStatus: plan.status,
        creditsTotal: plan.credits,
        creditsUsed: 0,
        renewalAmount: plan.renewalAmount,
        nextRenewalAt: plan.nextRenewalAt,
        uploadsUsed: 0,
        assetsBytes: 0,
        assetsVersion: 0,
        uploadsTotal: plan.uploadsBytes,
        apiKeyInQuery: true,
        createdAt: new Date(openedAt),
      };
    }
    case 'BillingPeriodOpened':
    case 'CreditsCharged':
    case 'CreditsRefunded':
    case 'CreditsRenewed':
      return row && { ...row, ...evolveCreditBalance(row, event, ledgerOfStream(event.streamName)?.endsAt ?? null) };
    case 'RenderCompleted':
      return row && storesFile(event) ? { ...row, uploadsUsed: row.uploadsUsed + event.data.bytes } : row;
    case 'ResultDeleted':
      return row && stored ? { ...row, uploadsUsed: row.uploadsUsed - stored.bytes } : row;
    case 'FontUploaded':
    case 'UploadStored':
      return row && { ...row, uploadsUsed: row.uploadsUsed + event.data.bytes, assetsBytes: row.assetsBytes + event.data.bytes, assetsVersion: row.assetsVersion + 1 };
    case 'FontDeleted':
    case 'UploadDeleted':
      return row && { ...row, uploadsUsed: row.uploadsUsed - event.data.bytes, assetsBytes: row.assetsBytes - event.data.bytes, assetsVersion: row.assetsVersion + 1 };
    case 'AccountSettingsChanged':
      return row && { ...row, apiKeyInQuery: event.data.apiKeyInQuery };
    default:
      if (isKeyOrSecretEvent(event)) return row;
      return event satisfies never;
  }
};

export const evolveApiKeyRow = (row: ApiKeyRow | null, event: RecordedEvent<AccountsProjectionEvent>): ApiKeyRow | null => {
  if (event.type === 'ApiKeyIssued') {
    const orgId = orgIdOfStream(event.streamName);
    if (orgId === null) return row;
    const { keyId, hash, prefix, label, scopes, test, issuedAt } = event.data;
    return { id: keyId, orgId, hash, prefix, label, scopes: [...scopes], test: test === true, revoked: false, createdAt: new Date(issuedAt) };
  }
  if (event.type === 'ApiKeyRevoked') return row && { ...row, revoked: true };
  return row;
};

export const evolveUrlSigningKeyRow = (row: UrlSigningKeyRow | null, event: RecordedEvent<AccountsProjectionEvent>): UrlSigningKeyRow | null => {
  switch (event.type) {
    case 'UrlSigningKeyCreated': {
      const orgId = orgIdOfStream(event.streamName);
      if (orgId === null) return row;
      const { keyId, secret, createdAt } = event.data;
      return { id: keyId, orgId, sealedSecret: secret.sealed, createdAt: new Date(createdAt), rotatedAt: null, revokedAt: null };
    }
    case 'UrlSigningKeyRotated':
      return row && { ...row, sealedSecret: event.data.secret.sealed, rotatedAt: new Date(event.data.rotatedAt) };
    case 'UrlSigningKeyRevoked':
      return row && { ...row, revokedAt: new Date(event.data.revokedAt) };
    default:
      return row;
  }
};

const isUrlSigningEvent = (event: RecordedEvent<AccountsProjectionEvent>): event is RecordedEvent<UrlSigningEvent> =>
  event.type === 'UrlSigningKeyCreated' || event.type === 'UrlSigningKeyRotated' || event.type === 'UrlSigningKeyRevoked';

/**
 * The bytes each stored file adds to its organization's uploads, kept per request so its deletion
 * can take them back: the results projection runs on its own and may not have reached the same
 * event. A file is counted only in an account that exists when it is stored.
 */
export const evolveStoredFileRow = (row: StoredFileRow | null, event: RecordedEvent<AccountsProjectionEvent>, account: AccountRow | null): StoredFileRow | null => {
  if (storesFile(event)) return account ? { requestId: event.data.requestId, orgId: account.orgId, bytes: event.data.bytes } : row;
  if (event.type === 'ResultDeleted') return null;
  return row;
};

export const accountsProjection: DocumentProjection<AccountsProjectionEvent> = {
  name: 'accounts',
  canHandle: isAccountsProjectionEvent,
  // The account fold runs first: a deletion reads the stored file before the last fold removes it.
  folds: [
    fold<AccountsProjectionEvent, AccountRow, StoredFileRow>({
      entity: AccountRow,
      related: { entity: StoredFileRow, id: (event) => (event.type === 'ResultDeleted' ? event.data.requestId : null) },
      documents: (event, stored) => {
        const orgId = accountOf(event, stored);
        return orgId === null ? [] : [orgId];
      },
      evolve: evolveAccountRow,
    }),
    fold<AccountsProjectionEvent, ApiKeyRow>({
      entity: ApiKeyRow,
      documents: (event) => (event.type === 'ApiKeyIssued' || event.type === 'ApiKeyRevoked' ? [event.data.keyId] : []),
      evolve: evolveApiKeyRow,
    }),
    fold<AccountsProjectionEvent, UrlSigningKeyRow>({
      entity: UrlSigningKeyRow,
      documents: (event) => (isUrlSigningEvent(event) ? [event.data.keyId] : []),
      evolve: evolveUrlSigningKeyRow,
    }),
    fold<AccountsProjectionEvent, StoredFileRow, AccountRow>({
      entity: StoredFileRow,
      related: { entity: AccountRow, id: (event) => (storesFile(event) ? event.metadata.orgId : null) },
      documents: (event) => (storesFile(event) || event.type === 'ResultDeleted' ? [event.data.requestId] : []),
      // A request stores its file once, at its completion, which starts the row: not read first (a round trip on the way to every answer).
      makesAnew: storesFile,
      evolve: evolveStoredFileRow,
    }),
  ],
};
