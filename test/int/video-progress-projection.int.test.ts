import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventStore } from '../../application/ports/event-store.js';
import type { ResultReadModel } from '../../application/ports/read-models.js';
import { foldResultView } from '../../application/results/result-view.js';
import { toEnvelopes } from '../../application/shared/command-handler.js';
import { API_KEY_SCOPES } from '../../domain/accounts/account-events.js';
import { renderStream, type RenderEvent } from '../../domain/renders/render-events.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { createPostgresEventStore } from '../../infrastructure/event-store/postgres-event-store.js';
import { createProjectionSet, type ProjectionSet } from '../../infrastructure/projections/projection-set.js';
import { openReadModels } from '../../infrastructure/read-models/orm.js';
import { createResultReadModel } from '../../infrastructure/read-models/result-read-model.js';
import { uuidV7Ids } from '../../infrastructure/system/clock-and-ids.js';
import { createTestDatabase } from '../support/database.js';
import { renderCompleted, renderRequested } from '../support/render-events.js';

const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
const clock = { now: () => new Date('2026-02-01T10:00:00.000Z') };
const at = '2026-02-01T10:00:00.000Z';

let eventStore: EventStore;
let orm: MikroORM;
let projections: ProjectionSet;
let results: ResultReadModel;

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  eventStore = await createPostgresEventStore({ connectionString: databaseUrl });
  orm = await openReadModels(databaseUrl);
  projections = createProjectionSet({ orm, eventStore, logger });
  await projections.start();
  results = createResultReadModel(orm);
});
afterAll(async () => {
  await projections?.stop();
  await orm?.close();
  await eventStore?.close();
});

const onRender = async (orgId: string, requestId: string, ...events: RenderEvent[]) => {
  const context = { caller: { orgId, actor: 'system', scopes: API_KEY_SCOPES }, correlationId: requestId };
  const { position } = await eventStore.append(renderStream(requestId), toEnvelopes(events, context, { clock, ids: uuidV7Ids }), 'any');
  expect(await projections.waitFor(position, 10_000)).toBe(true);
};

const progressed = (requestId: string, framesDone: number): RenderEvent => ({ type: 'RenderProgressed', data: { requestId, framesDone, framesTotal: 90, at } });

describe('results projection of video progress', () => {
  it('keeps the most frames any attempt reached while pending, as the stream fold does', async () => {
    const orgId = `org-${randomUUID()}`;
    const requestId = randomUUID();
    const requested = renderRequested({ requestId, orgId, requestedAt: at, spec: { editor: 'canvas-html', format: 'webm', duration: 3000, fps: 30 } });
    await onRender(orgId, requestId, requested);
    expect(await results.get(orgId, requestId)).toMatchObject({ status: 'pending', framesDone: 0, framesTotal: 90 });

    // A second attempt restarts from frame 0 and reports less than the first reached.
    await onRender(orgId, requestId, progressed(requestId, 63), progressed(requestId, 18));
    const pending = await results.get(orgId, requestId);
    expect(pending).toMatchObject({ framesDone: 63, framesTotal: 90 });

    const stream = (await eventStore.readStream(renderStream(requestId))) as unknown as RenderEvent[];
    expect(foldResultView(stream)).toEqual(pending);

    await onRender(orgId, requestId, renderCompleted({ requestId, completedAt: at, contentType: 'video/webm' }), progressed(requestId, 90));
    expect(await results.get(orgId, requestId)).toMatchObject({ status: 'done', framesDone: 63 });
  });

  it('leaves image results without progress', async () => {
    const orgId = `org-${randomUUID()}`;
    const requestId = randomUUID();
    await onRender(orgId, requestId, renderRequested({ requestId, orgId, requestedAt: at }));
    expect(await results.get(orgId, requestId)).toMatchObject({ framesDone: null, framesTotal: null });
  });
});
