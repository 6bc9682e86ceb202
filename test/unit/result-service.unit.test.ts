import { text } from 'node:stream/consumers';
import { beforeEach, describe, expect, it } from 'vitest';
import type { EventStore } from '../../application/ports/event-store.js';
import type { RenderInput } from '../../application/renders/request-render/render-input.js';
import { createResultService } from '../../application/results/result-service.js';
import { renderStream } from '../../domain/renders/render-events.js';
import { AccountRow } from '../../infrastructure/read-models/entities.js';
import { contextOf, createWorld, ORG, OTHER_ORG, type World } from '../support/application-world.js';
import { expectDomainError } from '../support/expect-domain-error.js';
import { createFakeOrchestrator } from '../support/fake-orchestrator.js';

/**
 * Given/when/then for the result service (get, list, delete, the file behind a link) on the
 * in-memory event store: results are made by the real render service and render steps, and read
 * through the real results projection folded in memory.
 */

let world: World;
let templateId: string;

const results = (eventStore: EventStore = world.commandDeps.eventStore) =>
  createResultService({ ...world.commandDeps, eventStore, results: world.readModels.results, progress: world.readModels.progress, storage: world.storage, links: world.links });

const rendered = async (input: Partial<RenderInput> = {}, orgId = ORG) => {
  const answer = await world.renderService().render(contextOf(orgId), { template: templateId, data: { title: 'Hello' }, ...input });
  world.clock.advance(1000);
  return answer;
};

const uploadsUsed = (orgId = ORG) => world.readModels.rows(AccountRow).find((row) => row.orgId === orgId)?.uploadsUsed;

beforeEach(async () => {
  world = createWorld();
  await world.given.account(ORG);
  templateId = await world.given.htmlTemplate(ORG);
});

describe('result service: get', () => {
  it('describes a finished render with its href, size and cost', async () => {
    const { requestId } = await rendered({ metadata: { order: 7 }, batchName: 'spring' });

    expect(await results().get(contextOf(), requestId)).toEqual({
      identifier: requestId,
      href: `https://renders.test/files/${requestId}/${requestId}.png`,
      status: 'done',
      width: 600,
      height: 300,
      templateName: 'Card',
      templateVersion: 2,
      template: templateId,
      createdAt: '2026-03-01T12:00:00.000Z',
      completedAt: '2026-03-01T12:00:00.000Z',
      metadata: { order: 7 },
      batch: 'spring',
      format: 'png',
      cached: false,
      credits: 1,
      kind: 'template',
    });
  });

  it('answers from the stream while the projection lags behind the render', async () => {
    world.readModels.pause();
    const { requestId } = await rendered();
    expect(await world.readModels.results.get(ORG, requestId)).toBeNull();

    expect(await results().get(contextOf(), requestId)).toMatchObject({ identifier: requestId, status: 'done' });
  });

  it('says why a failed render failed, and that it cost nothing', async () => {
    world.engine.failWith(new Error('the browser crashed'));
    const failed = await rendered().catch(() => null);
    expect(failed).toBeNull();
    const requestId = world.orchestrator.started[0]?.requestId ?? '';

    expect(await results().get(contextOf(), requestId)).toMatchObject({ status: 'failed', failureReason: 'the browser crashed', credits: 0 });
  });

  it("answers 404 for an unknown request and for another organization's result", async () => {
    const { requestId } = await rendered();

    await expectDomainError(results().get(contextOf(), 'no-such-request'), 'not_found');
    await expectDomainError(results().get(contextOf(OTHER_ORG), requestId), 'not_found');
  });

  it('refuses a key without the render scope', async () => {
    const { requestId } = await rendered();

    await expectDomainError(results().get(contextOf(ORG, ['templates']), requestId), 'forbidden');
  });
});

describe('result service: list', () => {
  it('pages results newest first, counting them all', async () => {
    const made: string[] = [];
    for (let index = 0; index < 5; index++) made.push((await rendered({ data: { title: `Card ${index}` } })).requestId);

    const first = await results().list(contextOf(), { page: 0, size: 2 });
    const last = await results().list(contextOf(), { page: 2, size: 2 });

    expect(first.content.map((item) => item.identifier)).toEqual([made[4], made[3]]);
    expect(first).toMatchObject({ totalElements: 5, totalPages: 3, first: true, last: false, numberOfElements: 2, number: 0, size: 2 });
    expect(last.content.map((item) => item.identifier)).toEqual([made[0]]);
    expect(last).toMatchObject({ first: false, last: true, numberOfElements: 1 });
    expect(first.content[0]).toEqual({
      identifier: made[4],
      href: expect.stringContaining(made[4] ?? ''),
      width: 600,
      height: 300,
      templateName: 'Card',
      templateVersion: 2,
      createdAt: '2026-03-01T12:00:04.000Z',
    });
  });

  it('filters by template and by batch, and shows only the caller organization', async () => {
    const otherTemplate = await world.given.htmlTemplate(ORG, { name: 'Other' });
    const inBatch = await rendered({ batchName: 'b1' });
    const ofOtherTemplate = await rendered({ template: otherTemplate });
    await world.given.account(OTHER_ORG);

    const byTemplate = await results().list(contextOf(), { templateId: otherTemplate, page: 0, size: 10 });
    const byBatch = await results().list(contextOf(), { batchName: 'b1', page: 0, size: 10 });
    const others = await results().list(contextOf(OTHER_ORG), { page: 0, size: 10 });

    expect(byTemplate.content.map((item) => item.identifier)).toEqual([ofOtherTemplate.requestId]);
    expect(byBatch.content.map((item) => item.identifier)).toEqual([inBatch.requestId]);
    expect(others).toMatchObject({ totalElements: 0, empty: true, content: [] });
  });
});

describe('result service: delete', () => {
  it('records the deletion, removes the file and gives its bytes back', async () => {
    const { requestId, storageKey } = await rendered();
    expect(uploadsUsed()).toBeGreaterThan(0);

    await results().delete(contextOf(), requestId);

    expect(await world.typesOf(requestId)).toEqual(['RenderRequested', 'RenderCompleted', 'ResultDeleted']);
    expect(world.storage.deleted).toEqual([storageKey]);
    expect(await world.storage.get(storageKey ?? '')).toBeNull();
    expect(uploadsUsed()).toBe(0);
    await expectDomainError(results().get(contextOf(), requestId), 'not_found');
    expect((await results().list(contextOf(), { page: 0, size: 10 })).totalElements).toBe(0);
  });

  it('leaves the file of a cache hit to the render that stored it', async () => {
    const original = await rendered();
    const hit = await rendered();
    expect(hit).toMatchObject({ cached: true, storageKey: original.storageKey });
    const used = uploadsUsed();

    await results().delete(contextOf(), hit.requestId);

    expect(world.storage.deleted).toEqual([]);
    expect((await world.storage.get(original.storageKey ?? ''))?.length).toBeGreaterThan(0);
    expect(uploadsUsed()).toBe(used);
    await expectDomainError(results().get(contextOf(), hit.requestId), 'not_found');
    expect(await results().get(contextOf(), original.requestId)).toMatchObject({ status: 'done' });
    const link = await results().openFile(original.requestId, `${original.requestId}.png`, {});
    expect(link.kind).toBe('content');
  });

  it('takes the shared file from the cache hits when the render that stored it is deleted, so the next request renders again', async () => {
    const original = await rendered();
    const hit = await rendered();

    await results().delete(contextOf(), original.requestId);
    const again = await rendered();

    expect(world.storage.deleted).toEqual([original.storageKey]);
    expect(again.cached).toBeUndefined();
    expect(await world.typesOf(again.requestId)).toEqual(['RenderRequested', 'RenderCompleted']);
    expect((await world.streamOf(again.requestId))[1]?.data).toMatchObject({ cached: false });
    expect(await results().get(contextOf(), hit.requestId)).toMatchObject({ status: 'done', cached: true });
  });

  it('reads the render stream once: the render itself knows whether the file is its own', async () => {
    await rendered();
    const hit = await rendered();
    const { eventStore } = world.commandDeps;
    const reads: string[] = [];
    const counted: EventStore = { ...eventStore, readStream: (stream, options) => (reads.push(stream), eventStore.readStream(stream, options)) };

    await results(counted).delete(contextOf(), hit.requestId);

    expect(reads).toEqual([renderStream(hit.requestId)]);
    expect(world.storage.deleted).toEqual([]);
  });

  it('refuses a pending result with 409, and a deleted, unknown or foreign one with 404', async () => {
    const pending = createFakeOrchestrator();
    pending.endWith('timeout');
    const started = await world
      .renderService({ orchestrator: pending })
      .render(contextOf(), { template: templateId, webhookUrl: 'https://hooks.example.com/renders' });
    const done = await rendered({ cache: false });

    await expectDomainError(results().delete(contextOf(), started.requestId), 'conflict');
    await expectDomainError(results().delete(contextOf(OTHER_ORG), done.requestId), 'not_found');
    await expectDomainError(results().delete(contextOf(), 'no-such-request'), 'not_found');
    await results().delete(contextOf(), done.requestId);
    await expectDomainError(results().delete(contextOf(), done.requestId), 'not_found');
    expect(await world.typesOf(done.requestId)).toEqual(['RenderRequested', 'RenderCompleted', 'ResultDeleted']);
  });
});

describe('result service: the file behind a link', () => {
  it('streams the stored file to anyone holding the href, and answers ranges and revalidations', async () => {
    const { requestId } = await rendered({ fileName: 'card' });

    const whole = await results().openFile(requestId, 'card.png', {});
    const part = await results().openFile(requestId, 'card.png', {}, { range: { start: 0, end: 3 } });
    const fresh = await results().openFile(requestId, 'card.png', {}, { isFresh: () => true });

    expect(whole).toMatchObject({ kind: 'content', contentType: 'image/png', fileName: 'card.png', range: null });
    expect(whole.kind === 'content' && (await text(whole.stream))).toMatch(/^png:<!doctype html>/);
    expect(part.kind === 'content' && (await text(part.stream))).toBe('png:');
    expect(fresh.kind).toBe('not-modified');
    await expectDomainError(results().openFile(requestId, 'other.png', {}), 'not_found');
  });

  it('requires a valid signature for a link that expires, and refuses it once expired', async () => {
    const { requestId, href } = await rendered({ fileName: 'card', expires: 60 });
    const query = Object.fromEntries(new URL(href).searchParams) as { expires?: string; signature?: string };

    await expectDomainError(results().openFile(requestId, 'card.png', {}), 'forbidden');
    expect((await results().openFile(requestId, 'card.png', query)).kind).toBe('content');
    world.clock.advance(60_000);
    await expectDomainError(results().openFile(requestId, 'card.png', query), 'forbidden');
  });
});
