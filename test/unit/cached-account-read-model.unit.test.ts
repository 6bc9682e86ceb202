import type { EntityName } from '@mikro-orm/core';
import { describe, expect, it } from 'vitest';
import type { AccountReadModel, AccountView } from '../../application/ports/read-models.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import type { CommitListener } from '../../infrastructure/projections/projection-set.js';
import type { TableChanges } from '../../infrastructure/projections/document-projection.js';
import { cachedAccountReadModel } from '../../infrastructure/read-models/cached-read-models.js';
import { AccountRow, ApiKeyRow } from '../../infrastructure/read-models/entities.js';

const account = (orgId: string, creditsUsed: number) => ({ orgId, planName: 'free', creditsUsed }) as AccountView;

const event = (type: string, streamName: string, orgId: string, data: object = {}) =>
  ({ type, streamName, data, metadata: { orgId }, revision: 0, position: 1 }) as unknown as RecordedEvent;

/** A read model answering from `rows`, counting reads; a feed the test commits batches of the accounts projection to. */
const setup = () => {
  const rows = new Map<string, AccountView>();
  let reads = 0;
  const inner = {
    getAccount: async (orgId: string) => {
      reads++;
      return rows.get(orgId) ?? null;
    },
  } as AccountReadModel;
  const listeners: CommitListener[] = [];
  const accounts = cachedAccountReadModel(inner, { onCommitted: (projection, listener) => projection === 'accounts' && listeners.push(listener) });
  const commit = (...events: RecordedEvent[]) => listeners.forEach((listener) => listener(events, null));
  /** A batch whose rows this process's runner wrote: the listeners are told them. */
  const commitWritten = (written: readonly TableChanges[], ...events: RecordedEvent[]) => listeners.forEach((listener) => listener(events, written));
  return { rows, accounts, commit, commitWritten, reads: () => reads };
};

describe('cached accounts', () => {
  it('reads an organization once, and never answers it for another', async () => {
    const { rows, accounts, reads } = setup();
    rows.set('org-a', account('org-a', 1));
    expect(await accounts.getAccount('org-a')).toEqual(account('org-a', 1));
    expect(await accounts.getAccount('org-a')).toEqual(account('org-a', 1));
    expect(await accounts.getAccount('org-b')).toBeNull();
    expect(reads()).toBe(2);
  });

  it('keeps the row through cache hits and key events, and reads it again after a charge or a stored file', async () => {
    const { rows, accounts, commit, reads } = setup();
    rows.set('org-a', account('org-a', 1));
    rows.set('org-b', account('org-b', 0));
    await accounts.getAccount('org-a');
    await accounts.getAccount('org-b');

    // A cache hit's completion stores no file; key events change another table.
    commit(event('RenderCompleted', 'render-1', 'org-a', { cached: true }), event('ApiKeyIssued', 'account-org-a', 'org-a'));
    await accounts.getAccount('org-a');
    expect(reads()).toBe(2);

    rows.set('org-a', account('org-a', 2));
    commit(event('CreditsCharged', 'account-org-a', 'org-a', { amount: 1 }));
    expect(await accounts.getAccount('org-a')).toEqual(account('org-a', 2));
    expect(reads()).toBe(3);

    rows.set('org-a', account('org-a', 3));
    commit(event('RenderCompleted', 'render-2', 'org-a', { cached: false }));
    expect(await accounts.getAccount('org-a')).toEqual(account('org-a', 3));
    // Another organization's row stayed cached through both.
    await accounts.getAccount('org-b');
    expect(reads()).toBe(4);
  });

  it('forgets every row when a result is deleted (whoever stored the file gets its bytes back)', async () => {
    const { rows, accounts, commit, reads } = setup();
    rows.set('org-a', account('org-a', 1));
    rows.set('org-b', account('org-b', 1));
    await accounts.getAccount('org-a');
    await accounts.getAccount('org-b');
    commit(event('ResultDeleted', 'render-1', 'org-a'));
    await accounts.getAccount('org-a');
    await accounts.getAccount('org-b');
    expect(reads()).toBe(4);
  });

  it('takes the row this process wrote for a batch as it was written, without reading it back', async () => {
    const { rows, accounts, commitWritten, reads } = setup();
    rows.set('org-a', account('org-a', 1));
    await accounts.getAccount('org-a');
    const written = { orgId: 'org-a', name: 'A', planName: 'free', planStatus: 'active', creditsTotal: 50, creditsUsed: 2, renewalAmount: 50, nextRenewalAt: '2026-12-01', uploadsUsed: 10, assetsBytes: 0, assetsVersion: 0, uploadsTotal: 100, apiKeyInQuery: true, createdAt: new Date(0) };
    // The table still says 1: had it been read, the answer would show it.
    commitWritten(
      [{ entity: AccountRow as EntityName<object>, upserts: new Map([['org-a', written]]), deletes: [] }, { entity: ApiKeyRow as EntityName<object>, upserts: new Map([['key-1', { id: 'key-1', orgId: 'org-b' }]]), deletes: [] }],
      event('CreditsCharged', 'account-org-a', 'org-a', { amount: 1 }),
    );
    const { createdAt: _createdAt, ...view } = written;
    expect(await accounts.getAccount('org-a')).toEqual(view);
    // Rows of other tables are not accounts.
    expect(await accounts.getAccount('key-1')).toBeNull();
    expect(reads()).toBe(2);
  });
});
