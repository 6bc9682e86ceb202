import type { EntityManager } from '@mikro-orm/postgresql';
import type { AccountEvent } from '../../domain/accounts/account-events.js';
import type { RenderCompleted, ResultDeleted } from '../../domain/renders/render-events.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import { AccountRow, ApiKeyRow, StoredFileRow } from '../read-models/entities.js';
import type { Projection } from './projection.js';

const ACCOUNT_STREAM_PREFIX = 'account-';
const RENDER_STREAM_PREFIX = 'render-';

type UploadEvent = RenderCompleted | ResultDeleted;

const isAccountEvent = (event: RecordedEvent): event is RecordedEvent<AccountEvent> =>
  event.streamName.startsWith(ACCOUNT_STREAM_PREFIX);

/** A cache hit's completion stores no file: only the render that stored one counts (and its deletion takes it back). */
const isUploadEvent = (event: RecordedEvent): event is RecordedEvent<UploadEvent> =>
  event.streamName.startsWith(RENDER_STREAM_PREFIX) &&
  ((event.type === 'RenderCompleted' && !(event.data as RenderCompleted['data']).cached) || event.type === 'ResultDeleted');

const applyAccountEvent = async (em: EntityManager, event: RecordedEvent<AccountEvent>) => {
  const orgId = event.streamName.slice(ACCOUNT_STREAM_PREFIX.length);
  switch (event.type) {
    case 'AccountOpened': {
      const { plan, name, openedAt } = event.data;
      em.create(AccountRow, {
        orgId,
        name,
        planName: plan.name,
        planStatus: plan.status,
        creditsTotal: plan.credits,
        creditsUsed: 0,
        renewalAmount: plan.renewalAmount,
        nextRenewalAt: plan.nextRenewalAt,
        uploadsUsed: 0,
        uploadsTotal: plan.uploadsBytes,
        createdAt: new Date(openedAt),
      });
      return;
    }
    case 'ApiKeyIssued': {
      const { keyId, hash, prefix, label, scopes, issuedAt } = event.data;
      em.create(ApiKeyRow, { id: keyId, orgId, hash, prefix, label, scopes: [...scopes], revoked: false, createdAt: new Date(issuedAt) });
      return;
    }
    case 'ApiKeyRevoked': {
      const row = await em.findOne(ApiKeyRow, { id: event.data.keyId });
      if (row) row.revoked = true;
      return;
    }
    case 'CreditsCharged': {
      const account = await em.findOne(AccountRow, { orgId });
      if (account) account.creditsUsed += event.data.amount;
      return;
    }
    case 'CreditsRefunded': {
      const account = await em.findOne(AccountRow, { orgId });
      // Same floor as the aggregate: a refund never makes the period's usage negative.
      if (account) account.creditsUsed = Math.max(0, account.creditsUsed - event.data.amount);
      return;
    }
    case 'CreditsRenewed': {
      const account = await em.findOne(AccountRow, { orgId });
      if (account) em.assign(account, { creditsUsed: 0, creditsTotal: event.data.credits, nextRenewalAt: event.data.nextRenewalAt });
      return;
    }
  }
};

/**
 * Uploads used = bytes of the organization's stored, undeleted files. Only the render that stored a
 * file counts it (a cache hit reuses the file). The bytes are kept per request here rather than read
 * from the results projection, which runs on its own and may not have reached the same event yet.
 */
const applyUploadEvent = async (em: EntityManager, event: RecordedEvent<UploadEvent>) => {
  if (event.type === 'RenderCompleted') {
    // Render completions are recorded in the context of the request's organization.
    const orgId = event.metadata.orgId;
    const account = await em.findOne(AccountRow, { orgId });
    if (!account) return;
    em.create(StoredFileRow, { requestId: event.data.requestId, orgId, bytes: event.data.bytes });
    account.uploadsUsed += event.data.bytes;
    return;
  }
  const stored = await em.findOne(StoredFileRow, { requestId: event.data.requestId });
  if (!stored) return;
  const account = await em.findOne(AccountRow, { orgId: stored.orgId });
  if (account) account.uploadsUsed -= stored.bytes;
  em.remove(stored);
};

export const accountsProjection: Projection = {
  name: 'accounts',
  handles: (event) => isAccountEvent(event) || isUploadEvent(event),
  async apply(em, event) {
    if (isAccountEvent(event)) await applyAccountEvent(em, event);
    else if (isUploadEvent(event)) await applyUploadEvent(em, event);
  },
};
