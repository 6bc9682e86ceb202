import type { EntityManager } from '@mikro-orm/postgresql';
import type { AccountEvent } from '../../domain/accounts/account-events.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import { AccountRow, ApiKeyRow } from '../read-models/entities.js';
import type { Projection } from './projection.js';

const ACCOUNT_STREAM_PREFIX = 'account-';

const isAccountEvent = (event: RecordedEvent): event is RecordedEvent<AccountEvent> =>
  event.streamName.startsWith(ACCOUNT_STREAM_PREFIX);

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
  }
};

export const accountsProjection: Projection = {
  name: 'accounts',
  async apply(em, event) {
    if (isAccountEvent(event)) await applyAccountEvent(em, event);
  },
};
