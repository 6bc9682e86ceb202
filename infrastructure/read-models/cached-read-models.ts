import type {
  AccountReadModel,
  AccountView,
  ApiKeyView,
  AssetReadModel,
  CachedFile,
  FontView,
  ResultReadModel,
  TemplateReadModel,
  TemplateView,
} from '../../application/ports/read-models.js';
import { accountStream } from '../../domain/accounts/account-events.js';
import { templateStream } from '../../domain/templates/template-events.js';
import { accountRowChangedBy } from '../projections/accounts-projection.js';
import { fontListChangedBy } from '../projections/assets-projection.js';
import type { CommitListener } from '../projections/projection-set.js';
import { toAccountView } from './account-read-model.js';
import { AccountRow } from './entities.js';
import { createInvalidatingCache } from './invalidating-cache.js';

/** Where the caches learn what the projections of this process committed. */
export interface CommitFeed {
  onCommitted(projection: string, listener: CommitListener): void;
}

const TEMPLATE_STREAM_PREFIX = templateStream('');
const ACCOUNT_STREAM_PREFIX = accountStream('');

/**
 * Every render looks its template up; a template changes rarely. Cached by id and evicted when the
 * templates projection commits an event of its stream, so a cached row is never older than the table.
 */
export const cachedTemplateReadModel = (inner: TemplateReadModel, feed: CommitFeed, max = 1_000): TemplateReadModel => {
  const cache = createInvalidatingCache<TemplateView>(max);
  feed.onCommitted('templates', (events) => {
    for (const event of events) {
      if (event.streamName.startsWith(TEMPLATE_STREAM_PREFIX)) cache.evict(event.streamName.slice(TEMPLATE_STREAM_PREFIX.length));
    }
  });
  return {
    ...inner,
    async get(orgId, templateId) {
      const view = await cache.get(templateId, () => inner.get(orgId, templateId));
      // Ids are unique across organizations; another organization's cached row is still not theirs.
      return view?.orgId === orgId ? view : null;
    },
  };
};

/**
 * Every request authenticates its key. Keys are cached by hash and evicted when the accounts
 * projection commits a key event of their organization (issue, revoke), so a revoked key stops
 * working here as soon as the read model says so.
 *
 * Every request also reads its organization's account (the plan for its rate limit, the assets
 * version for the render cache, credits for admission): cached by organization and evicted when
 * the projection commits an event that may change that row (a charge, a stored file, an upload),
 * so a cached row is never older than the table. Where this process's runner wrote the new row, the
 * cache takes it as written: every render charges and stores a file, and an organization rendering
 * one at a time would otherwise read its account back from the table for each, on its answer's path.
 */
export const cachedAccountReadModel = (inner: AccountReadModel, feed: CommitFeed, max = 10_000): AccountReadModel => {
  const keys = createInvalidatingCache<ApiKeyView>(max);
  feed.onCommitted('accounts', (events) => {
    const changedOrgs = new Set(
      events.filter((event) => event.type.startsWith('ApiKey')).map((event) => event.streamName.slice(ACCOUNT_STREAM_PREFIX.length)),
    );
    if (changedOrgs.size > 0) keys.evictWhere((key) => changedOrgs.has(key.orgId));
  });
  const accounts = createInvalidatingCache<AccountView>(max);
  feed.onCommitted('accounts', (events, written) => {
    for (const event of events) {
      const changed = accountRowChangedBy(event);
      if (changed === 'all') accounts.evictWhere(() => true);
      else if (changed !== null) accounts.evict(changed);
    }
    for (const change of written ?? []) {
      if (change.entity !== AccountRow) continue;
      for (const [orgId, row] of change.upserts) accounts.set(orgId, toAccountView(row as AccountRow));
    }
  });
  return {
    ...inner,
    findKeyByHash: (hash) => keys.get(hash, () => inner.findKeyByHash(hash)),
    getAccount: (orgId) => accounts.get(orgId, () => inner.getAccount(orgId)),
  };
};

/**
 * Every repeated request looks its cache key up. A finished render stays reusable until a result is
 * deleted: deleting the render that stored the file takes the file with it, deleting a hit takes
 * that row. Deletions are rare, so any deletion the results projection commits empties the cache
 * rather than work out which keys it touched. A newer render of a cached key needs no eviction: the
 * one cached is as good a source, same request, same file.
 */
export const cachedResultReadModel = (inner: ResultReadModel, feed: CommitFeed, max = 10_000): ResultReadModel => {
  const files = createInvalidatingCache<CachedFile>(max);
  feed.onCommitted('results', (events) => {
    if (events.some((event) => event.type === 'ResultDeleted')) files.evictWhere(() => true);
  });
  return {
    ...inner,
    // Cache keys are hashes over the organization among the rest; the organization in the key still keeps tenants apart by construction.
    findCached: (orgId, cacheKey) => files.get(`${orgId}:${cacheKey}`, () => inner.findCached(orgId, cacheKey)),
  };
};

/**
 * Every render declares its organization's uploaded fonts, and most organizations upload a font
 * once: the list is cached by organization and evicted when the assets projection commits a font
 * event of that organization's account stream, so a font uploaded or deleted shows in the next render.
 */
export const cachedAssetReadModel = (inner: AssetReadModel, feed: CommitFeed, max = 10_000): AssetReadModel => {
  const fonts = createInvalidatingCache<FontView[]>(max);
  feed.onCommitted('assets', (events) => {
    for (const event of events) {
      const orgId = fontListChangedBy(event);
      if (orgId !== null) fonts.evict(orgId);
    }
  });
  return {
    ...inner,
    listFonts: async (orgId) => (await fonts.get(orgId, () => inner.listFonts(orgId))) ?? [],
  };
};
