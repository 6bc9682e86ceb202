import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventStore } from '../../application/ports/event-store.js';
import type { AccountReadModel, ResultReadModel } from '../../application/ports/read-models.js';
import { foldResultView } from '../../application/results/result-view.js';
import { toEnvelopes } from '../../application/shared/command-handler.js';
import { accountStream, API_KEY_SCOPES, type AccountEvent } from '../../domain/accounts/account-events.js';
import { renderStream, type RenderEvent } from '../../domain/renders/render-events.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { createPostgresEventStore } from '../../infrastructure/event-store/postgres-event-store.js';
import { createProjectionSet, type ProjectionSet } from '../../infrastructure/projections/projection-set.js';
import { createAccountReadModel } from '../../infrastructure/read-models/account-read-model.js';
import { openReadModels } from '../../infrastructure/read-models/orm.js';
import { createResultReadModel } from '../../infrastructure/read-models/result-read-model.js';
import { uuidV7Ids } from '../../infrastructure/system/clock-and-ids.js';
import { createTestDatabase } from '../support/database.js';
import { renderCompleted, renderRequested } from '../support/render-events.js';

const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
const clock = { now: () => new Date('2026-02-01T10:00:00.000Z') };
const at = (second: number) => new Date(Date.parse('2026-02-01T10:00:00.000Z') + second * 1000).toISOString();

let eventStore: EventStore;
let orm: MikroORM;
let projections: ProjectionSet;
let results: ResultReadModel;
let accounts: AccountReadModel;

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  eventStore = await createPostgresEventStore({ connectionString: databaseUrl });
  orm = await openReadModels(databaseUrl);
  projections = createProjectionSet({ orm, eventStore, logger });
  await projections.start();
  results = createResultReadModel(orm);
  accounts = createAccountReadModel(orm);
});
afterAll(async () => {
  await projections?.stop();
  await orm?.close();
  await eventStore?.close();
});

/** Appends as the application does (render work is recorded in the requesting organization's context) and waits for the read models. */
const append = async (orgId: string, stream: string, ...events: (RenderEvent | AccountEvent)[]) => {
  const context = { caller: { orgId, actor: 'system', scopes: API_KEY_SCOPES }, correlationId: randomUUID() };
  const { position } = await eventStore.append(stream, toEnvelopes(events, context, { clock, ids: uuidV7Ids }), 'any');
  expect(await projections.waitFor(position, 10_000)).toBe(true);
};

const openAccount = async () => {
  const orgId = `org-${randomUUID()}`;
  await append(orgId, accountStream(orgId), {
    type: 'AccountOpened',
    data: {
      orgId,
      name: 'Acme',
      plan: { name: 'free', status: 'active', credits: 100, renewalAmount: 100, nextRenewalAt: '2026-03-01', uploadsBytes: 1_000_000 },
      openedAt: at(0),
    },
  });
  return orgId;
};

const onRender = (orgId: string, requestId: string, ...events: RenderEvent[]) => append(orgId, renderStream(requestId), ...events);
const onAccount = (orgId: string, ...events: AccountEvent[]) => append(orgId, accountStream(orgId), ...events);

describe('results projection', () => {
  it('follows a render from request to completion with everything a result view needs', async () => {
    const orgId = await openAccount();
    const requestId = randomUUID();
    await onRender(
      orgId,
      requestId,
      renderRequested({
        requestId,
        orgId,
        requestedAt: at(10),
        cacheKey: 'key-1',
        batchName: 'spring',
        metadata: { campaign: 7 },
        spec: { expires: 3600, format: 'webp', fileName: 'hero.webp' },
      }),
    );
    const pending = await results.get(orgId, requestId);
    expect(pending).toMatchObject({
      requestId,
      orgId,
      templateId: 'tpl-1',
      templateName: 'Card',
      status: 'pending',
      format: 'webp',
      width: null,
      height: null,
      expiresAt: Date.parse(at(10)) / 1000 + 3600,
      storageKey: null,
      fileName: 'hero.webp',
      cached: false,
      cacheKey: 'key-1',
      batchName: 'spring',
      metadata: { campaign: 7 },
      credits: 1,
      completedAt: null,
    });
    expect(pending?.createdAt.toISOString()).toBe(at(10));

    await onRender(
      orgId,
      requestId,
      renderCompleted({ requestId, completedAt: at(12), storageKey: `${orgId}/${requestId}/hero.webp`, fileName: 'hero.webp', contentType: 'image/webp', bytes: 4321, width: 600, height: 315 }),
    );
    const done = await results.get(orgId, requestId);
    expect(done).toMatchObject({ status: 'done', width: 600, height: 315, bytes: 4321, contentType: 'image/webp', storageKey: `${orgId}/${requestId}/hero.webp` });
    expect(done?.completedAt?.toISOString()).toBe(at(12));
    // The projection and a fold of the stream agree on the view.
    expect(foldResultView((await eventStore.readStream(renderStream(requestId))) as unknown as RenderEvent[])).toEqual(done);
    expect(await results.get('another-org', requestId)).toBeNull();
  });

  it('records failures with their reason and no cost, and the refund in the credits', async () => {
    const orgId = await openAccount();
    const requestId = randomUUID();
    await onRender(orgId, requestId, renderRequested({ requestId, orgId, requestedAt: at(1) }));
    await onAccount(orgId, { type: 'CreditsCharged', data: { requestId, amount: 1, chargedAt: at(1) } });
    expect((await accounts.getAccount(orgId))?.creditsUsed).toBe(1);
    await onRender(orgId, requestId, { type: 'RenderFailed', data: { requestId, reason: 'browser crashed', failedAt: at(2) } });
    await onAccount(orgId, { type: 'CreditsRefunded', data: { requestId, amount: 1, refundedAt: at(2) } });
    expect(await results.get(orgId, requestId)).toMatchObject({ status: 'failed', failureReason: 'browser crashed', credits: 0 });
    expect((await accounts.getAccount(orgId))?.creditsUsed).toBe(0);
  });

  it('lists newest first with the total, filtered by template and batch, without deleted results', async () => {
    const orgId = await openAccount();
    const ids = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await onRender(orgId, ids[0]!, renderRequested({ requestId: ids[0]!, orgId, requestedAt: at(1), batchName: 'a' }));
    await onRender(orgId, ids[1]!, renderRequested({ requestId: ids[1]!, orgId, requestedAt: at(2), batchName: 'a', spec: { templateId: 'tpl-2' } }));
    await onRender(orgId, ids[2]!, renderRequested({ requestId: ids[2]!, orgId, requestedAt: at(3) }));
    await onRender(orgId, ids[3]!, renderRequested({ requestId: ids[3]!, orgId, requestedAt: at(4) }), renderCompleted({ requestId: ids[3]!, completedAt: at(5) }));
    await onRender(orgId, ids[3]!, { type: 'ResultDeleted', data: { requestId: ids[3]!, deletedAt: at(6) } });

    const page = async (filter: { templateId?: string; batchName?: string; page?: number; size?: number }) => {
      const { items, total } = await results.list(orgId, { page: 0, size: 10, ...filter });
      return { ids: items.map((item) => item.requestId), total };
    };
    expect(await page({})).toEqual({ ids: [ids[2], ids[1], ids[0]], total: 3 });
    expect(await page({ size: 2, page: 1 })).toEqual({ ids: [ids[0]], total: 3 });
    expect(await page({ templateId: 'tpl-1' })).toEqual({ ids: [ids[2], ids[0]], total: 2 });
    expect(await page({ batchName: 'a' })).toEqual({ ids: [ids[1], ids[0]], total: 2 });
    expect(await page({ batchName: 'a', templateId: 'tpl-2' })).toEqual({ ids: [ids[1]], total: 1 });
    expect(await results.get(orgId, ids[3]!)).toBeNull();
  });

  it('serves cache hits from the newest undeleted render whose file is still stored, and counts uploads once', async () => {
    const orgId = await openAccount();
    const [source, hit] = [randomUUID(), randomUUID()];
    const storageKey = `${orgId}/${source}/card.png`;
    await onRender(
      orgId,
      source,
      renderRequested({ requestId: source, orgId, requestedAt: at(1), cacheKey: 'same' }),
      renderCompleted({ requestId: source, completedAt: at(2), storageKey, bytes: 2500 }),
    );
    expect(await results.findCached(orgId, 'same')).toEqual({ requestId: source, dataFrom: source, storageKey, contentType: expect.any(String), bytes: 2500, width: expect.any(Number), height: expect.any(Number) });
    expect(await results.findCached('another-org', 'same')).toBeNull();
    expect((await accounts.getAccount(orgId))?.uploadsUsed).toBe(2500);

    await onRender(
      orgId,
      hit,
      // Its data is held by reference to the source, and so is that of any hit found through it.
      renderRequested({ requestId: hit, orgId, requestedAt: at(3), cacheKey: 'same', credits: 0, dataFrom: source }),
      renderCompleted({ requestId: hit, completedAt: at(3), storageKey, bytes: 2500, cached: true, sourceRequestId: source }),
    );
    expect(await results.get(orgId, hit)).toMatchObject({ cached: true, credits: 0, storageKey, dataFrom: source });
    expect(await results.findCached(orgId, 'same')).toMatchObject({ requestId: hit, dataFrom: source });
    // The hit reuses the stored file: no new upload.
    expect((await accounts.getAccount(orgId))?.uploadsUsed).toBe(2500);

    await onRender(orgId, hit, { type: 'ResultDeleted', data: { requestId: hit, deletedAt: at(4) } });
    expect((await results.findCached(orgId, 'same'))?.requestId).toBe(source);
    expect((await accounts.getAccount(orgId))?.uploadsUsed).toBe(2500);

    const secondHit = randomUUID();
    await onRender(
      orgId,
      secondHit,
      renderRequested({ requestId: secondHit, orgId, requestedAt: at(5), cacheKey: 'same', credits: 0 }),
      renderCompleted({ requestId: secondHit, completedAt: at(5), storageKey, bytes: 2500, cached: true, sourceRequestId: source }),
    );
    await onRender(orgId, source, { type: 'ResultDeleted', data: { requestId: source, deletedAt: at(6) } });
    // The file went with its source: the remaining hit is listed but can no longer feed the cache.
    expect(await results.findCached(orgId, 'same')).toBeNull();
    expect((await results.get(orgId, secondHit))?.status).toBe('done');
    expect((await accounts.getAccount(orgId))?.uploadsUsed).toBe(0);
  });
});

describe('credits in the accounts projection', () => {
  it('adds charges, subtracts refunds and starts over on renewal', async () => {
    const orgId = await openAccount();
    await onAccount(
      orgId,
      { type: 'CreditsCharged', data: { requestId: 'r1', amount: 1, chargedAt: at(1) } },
      { type: 'CreditsCharged', data: { requestId: 'r2', amount: 30, chargedAt: at(2) } },
      { type: 'CreditsCharged', data: { requestId: 'r3', amount: 1, chargedAt: at(3) } },
    );
    await onAccount(orgId, { type: 'CreditsRefunded', data: { requestId: 'r2', amount: 30, refundedAt: at(4) } });
    expect(await accounts.getAccount(orgId)).toMatchObject({ creditsUsed: 2, creditsTotal: 100, nextRenewalAt: '2026-03-01' });

    await onAccount(
      orgId,
      { type: 'CreditsRenewed', data: { credits: 250, periodStartedAt: at(5), nextRenewalAt: '2026-04-01' } },
      { type: 'CreditsCharged', data: { requestId: 'r4', amount: 10, chargedAt: at(5) } },
    );
    expect(await accounts.getAccount(orgId)).toMatchObject({ creditsUsed: 10, creditsTotal: 250, renewalAmount: 100, nextRenewalAt: '2026-04-01' });
  });
});

describe('rebuild', () => {
  it('projects the same results and accounts from position 0 into fresh tables', async () => {
    const dump = async (target: MikroORM) => {
      const connection = target.em.getConnection();
      return {
        results: await connection.execute('select * from results order by request_id'),
        accounts: await connection.execute('select * from accounts order by org_id'),
        files: await connection.execute('select * from account_stored_files order by request_id'),
      };
    };
    const freshOrm = await openReadModels(await createTestDatabase());
    const rebuilt = createProjectionSet({ orm: freshOrm, eventStore, logger });
    try {
      await rebuilt.start();
      const original = await dump(orm);
      expect(original.results.length).toBeGreaterThan(0);
      expect(await dump(freshOrm)).toEqual(original);
    } finally {
      await rebuilt.stop();
      await freshOrm.close();
    }
  });
});
