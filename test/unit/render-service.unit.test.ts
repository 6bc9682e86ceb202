import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { RenderInput } from '../../application/renders/request-render/render-input.js';
import type { RenderRequested } from '../../domain/renders/render-events.js';
import { DomainError, UnavailableError } from '../../domain/shared/errors.js';
import { AccountRow, ResultRow } from '../../infrastructure/read-models/entities.js';
import { contextOf, createWorld, ORG, OTHER_ORG, PRIVATE_HOST, type World } from '../support/application-world.js';
import { expectDomainError } from '../support/expect-domain-error.js';
import { createFakeOrchestrator, type FakeOrchestrator } from '../support/fake-orchestrator.js';
import { sequentialId } from '../support/port-fakes.js';

/**
 * Given/when/then for "request a render" on the in-memory event store: the real render service,
 * deciders and render steps; a fake orchestrator that runs the steps at once (or ends as told).
 */

let world: World;
let orchestrator: FakeOrchestrator;
let templateId: string;

const renderService = ({ maxPendingSyncRenders = 4 } = {}) => world.renderService({ orchestrator, maxPending: maxPendingSyncRenders });

const render = (input: Partial<RenderInput> = {}, context = contextOf()) => renderService().render(context, { template: templateId, data: { title: 'Hello' }, ...input });

const requestedOf = async (requestId: string) => (await world.streamOf(requestId)).find((event) => event.type === 'RenderRequested')?.data as RenderRequested['data'];
const account = (orgId = ORG) => world.readModels.rows(AccountRow).find((row) => row.orgId === orgId);

/** Whatever the "when" did, nothing was recorded for a new request and nothing was started. */
const expectNothingAccepted = async (eventsBefore: number) => {
  expect(await world.log()).toHaveLength(eventsBefore);
  expect(orchestrator.started).toEqual([]);
};

beforeEach(async () => {
  world = createWorld();
  orchestrator = world.orchestrator;
  await world.given.account(ORG, { credits: 10 });
  templateId = await world.given.htmlTemplate(ORG);
});

describe('render service: accepting a render', () => {
  it('records the request with its pinned spec, renders it synchronously and answers with the stored file', async () => {
    const answer = await render({ fileName: 'hello' });

    const requestId = answer.requestId;
    expect(orchestrator.started).toEqual([{ kind: 'render', requestId, webhook: false }]);
    expect(await world.typesOf(requestId)).toEqual(['RenderRequested', 'RenderCompleted']);
    const requested = await requestedOf(requestId);
    expect(requested).toMatchObject({
      orgId: ORG,
      credits: 1,
      cacheKey: expect.stringMatching(/^[0-9a-f]{64}$/),
      spec: { templateId, templateRevision: 1, format: 'png', width: 600, height: 300, data: { title: 'Hello' }, fileName: 'hello.png' },
    });
    expect(answer).toEqual({
      requestId,
      href: `https://renders.test/files/${requestId}/hello.png`,
      storageKey: `${ORG}/${requestId}/hello.png`,
      contentType: 'image/png',
    });
    const file = (await world.storage.get(`${ORG}/${requestId}/hello.png`))?.toString();
    expect(file).toMatch(/^png:<!doctype html>.*<h1>Hello<\/h1>/);
    expect(account()?.creditsUsed).toBe(1);
    expect(world.readModels.rows(ResultRow).find((row) => row.requestId === requestId)?.status).toBe('done');
  });

  it('answers at once with only the request id and href when the outcome goes to a webhook', async () => {
    const answer = await render({ webhookUrl: 'https://hooks.example.com/renders' });

    expect(answer).toEqual({ requestId: answer.requestId, href: expect.stringContaining(answer.requestId) });
    expect(orchestrator.started).toEqual([{ kind: 'render', requestId: answer.requestId, webhook: true }]);
    expect((await requestedOf(answer.requestId)).webhookUrl).toBe('https://hooks.example.com/renders');
  });

  it('starts a video workflow for a video format and answers pending without waiting', async () => {
    const videoTemplate = await world.given.template(ORG, { editor: 'canvas-html', outputFormat: 'mp4' });
    orchestrator.endWith('timeout');

    const answer = await renderService().render(contextOf(), { template: videoTemplate, duration: 1000 });

    expect(answer).toMatchObject({ status: 'pending' });
    expect(orchestrator.started).toEqual([{ kind: 'video', requestId: answer.requestId, webhook: false }]);
    expect(await requestedOf(answer.requestId)).toMatchObject({ credits: 10, spec: { format: 'mp4', duration: 1000, fps: 30 } });
  });

  it('renders the request under the id the generator gives next', async () => {
    const next = sequentialId(world.ids.issued.length + 1);
    expect((await render()).requestId).toBe(next);
  });
});

describe('render service: the render cache', () => {
  it('answers a repeated request from the earlier render: a free, cached render of its own that shares the stored file', async () => {
    const first = await render();
    const filesBefore = world.storage.keys();

    const repeated = await render();

    expect(repeated).toMatchObject({ cached: true, storageKey: first.storageKey, contentType: 'image/png' });
    expect(repeated.requestId).not.toBe(first.requestId);
    const hitEvents = await world.streamOf(repeated.requestId);
    expect(hitEvents).toEqual([
      expect.objectContaining({
        type: 'RenderServedFromCache',
        data: expect.objectContaining({ credits: 0, cacheKey: (await requestedOf(first.requestId)).cacheKey, sourceRequestId: first.requestId, file: expect.objectContaining({ storageKey: first.storageKey }) }),
      }),
    ]);
    // Nothing rendered, stored, started or charged for the hit.
    expect(world.engine.rendered).toHaveLength(1);
    expect(world.storage.keys()).toEqual(filesBefore);
    expect(orchestrator.started.map((work) => work.requestId)).toEqual([first.requestId]);
    expect(account()?.creditsUsed).toBe(1);
  });

  it('answers an unrecorded hit (a public image URL viewed again) with the earlier render, recording, storing and starting nothing', async () => {
    const first = await render();
    const eventsBefore = (await world.log()).length;

    const viewed = await renderService().render(contextOf(), { template: templateId, data: { title: 'Hello' } }, 'unrecorded');

    expect(viewed).toMatchObject({ requestId: first.requestId, cached: true, storageKey: first.storageKey, contentType: 'image/png' });
    expect(await world.log()).toHaveLength(eventsBefore);
    expect(orchestrator.started.map((work) => work.requestId)).toEqual([first.requestId]);
    expect(world.engine.rendered).toHaveLength(1);
    expect(account()?.creditsUsed).toBe(1);
    // Without an earlier render, the view renders and records like any request.
    const fresh = await renderService().render(contextOf(), { template: templateId, data: { title: 'New' } }, 'unrecorded');
    expect(fresh.cached).toBeUndefined();
    expect(await requestedOf(fresh.requestId)).toMatchObject({ requestId: fresh.requestId });
  });

  it('still tells the webhook of a cache hit', async () => {
    await render();

    const hit = await render({ webhookUrl: 'https://hooks.example.com/renders' });

    expect(hit.cached).toBe(true);
    expect(orchestrator.started.at(-1)).toEqual({ kind: 'webhook', requestId: hit.requestId, webhook: true });
  });

  it('renders again when the client turns the cache off, or when the data differs', async () => {
    const first = await render();

    const uncached = await render({ cache: false });
    const otherData = await render({ data: { title: 'Other' } });

    expect(uncached.cached).toBeUndefined();
    expect(otherData.cached).toBeUndefined();
    expect((await requestedOf(uncached.requestId)).cacheKey).toBeNull();
    expect(orchestrator.started.map((work) => work.requestId)).toEqual([first.requestId, uncached.requestId, otherData.requestId]);
    expect(account()?.creditsUsed).toBe(3);
  });

  it('does not answer from a render of another organization', async () => {
    await world.given.account(OTHER_ORG);
    const othersTemplate = await world.given.htmlTemplate(OTHER_ORG);
    await renderService().render(contextOf(OTHER_ORG), { template: othersTemplate, data: { title: 'Hello' } });

    const mine = await render();

    expect(mine.cached).toBeUndefined();
  });
});

describe('render service: admission', () => {
  it('refuses with 402 a render the account has no credits left for, recording nothing', async () => {
    await world.given.account(OTHER_ORG, { credits: 0 });
    const othersTemplate = await world.given.htmlTemplate(OTHER_ORG);
    const before = (await world.log()).length;

    const error = await expectDomainError(renderService().render(contextOf(OTHER_ORG), { template: othersTemplate }), 'payment_required');

    expect(error.details).toEqual(['this render costs 1 credits; 0 left']);
    await expectNothingAccepted(before);
  });

  it('refuses with 402 once the account has used up its credits', async () => {
    await world.given.account(OTHER_ORG, { credits: 1 });
    const othersTemplate = await world.given.htmlTemplate(OTHER_ORG);
    const first = await renderService().render(contextOf(OTHER_ORG), { template: othersTemplate });
    expect(account(OTHER_ORG)?.creditsUsed).toBe(1);

    await expectDomainError(renderService().render(contextOf(OTHER_ORG), { template: othersTemplate, cache: false }), 'payment_required');
    expect(orchestrator.started.map((work) => work.requestId)).toEqual([first.requestId]);
  });

  it('refuses with 402 when the upload storage is full', async () => {
    await world.given.account(OTHER_ORG, { uploadsBytes: 10 });
    const othersTemplate = await world.given.htmlTemplate(OTHER_ORG, { html: '<p>{{title}} is a title long enough to fill ten bytes</p>' });
    await renderService().render(contextOf(OTHER_ORG), { template: othersTemplate });
    expect(account(OTHER_ORG)?.uploadsUsed).toBeGreaterThanOrEqual(10);

    const error = await expectDomainError(renderService().render(contextOf(OTHER_ORG), { template: othersTemplate, cache: false }), 'payment_required');
    expect(error.message).toBe('Upload storage is full');
  });

  it('refuses a caller whose organization has no account', async () => {
    const orphanTemplate = await world.given.htmlTemplate('org-without-account');

    const error = await expectDomainError(renderService().render(contextOf('org-without-account'), { template: orphanTemplate }), 'forbidden');

    expect(error.message).toBe('Organization not found');
  });

  it('refuses a key without the render scope before reading anything', async () => {
    await expectDomainError(render({}, contextOf(ORG, ['templates'])), 'forbidden');
    expect(orchestrator.started).toEqual([]);
  });

  it('refuses with 503 a synchronous render when the waiting room is full', async () => {
    const before = (await world.log()).length;

    const error = await expectDomainError(renderService({ maxPendingSyncRenders: 0 }).render(contextOf(), { template: templateId }), 'unavailable');

    expect(error.details).toEqual(['render queue is full']);
    await expectNothingAccepted(before);
  });
});

describe('render service: validation', () => {
  it.each<[string, Partial<RenderInput>, RegExp]>([
    ['an unknown template', { template: 'no-such-template' }, /Template no-such-template not found/],
    ['a PDF standard on an image', { pdfStandard: 'PDF/A-2b' as RenderInput['pdfStandard'] }, /pdfStandard applies to pdf renders only/],
    ['a duration on an image', { duration: 3000 }, /duration and fps apply to video renders only/],
    ['a video of an html template', { outputFormat: 'mp4' }, /only available for canvas-html templates/],
    ['data larger than its limit', { data: { text: 'x'.repeat(600 * 1024) } }, /Request fields are too large/],
  ])('refuses %s with 400 and records nothing', async (_case, input, message) => {
    const before = (await world.log()).length;

    const error = await expectDomainError(render(input), 'validation');

    expect(error.message).toMatch(message);
    await expectNothingAccepted(before);
  });

  it('refuses a webhookUrl on a private address before anything is written or charged', async () => {
    const before = (await world.log()).length;

    await expectDomainError(render({ webhookUrl: `http://${PRIVATE_HOST}/hook` }), 'validation');

    await expectNothingAccepted(before);
  });
});

describe('render service: how the render ended', () => {
  it('answers 400 for a template that cannot be rendered, recording the failure and refunding the charge', async () => {
    world.engine.failWith(new DomainError('validation', 'the page never finished loading'));

    const error = await expectDomainError(render(), 'validation');

    expect(error.message).toBe('Render failed: the page never finished loading');
    const requestId = orchestrator.started[0]?.requestId ?? '';
    expect(await world.typesOf(requestId)).toEqual(['RenderRequested', 'RenderFailed']);
    expect(account()?.creditsUsed).toBe(0);
    expect(world.readModels.rows(ResultRow).find((row) => row.requestId === requestId)).toMatchObject({ status: 'failed', credits: 0 });
  });

  it('answers 503 with the pool\'s Retry-After when no worker had room', async () => {
    world.engine.failWith(new UnavailableError('every browser is busy', 17));

    const error = await render().then(
      () => expect.fail('the render should have been refused'),
      (rejection: unknown) => rejection,
    );

    expect(error).toBeInstanceOf(UnavailableError);
    expect(error).toMatchObject({ code: 'unavailable', retryAfterSeconds: 17 });
  });

  it('answers 503 when the render outlasts the synchronous wait; the render goes on', async () => {
    const timingOut = createFakeOrchestrator();
    timingOut.endWith('timeout');
    orchestrator = timingOut;

    const error = await expectDomainError(render(), 'unavailable');

    expect(error.message).toMatch(/taking longer than expected/);
    expect(await world.typesOf(orchestrator.started[0]?.requestId ?? '')).toEqual(['RenderRequested']);
  });

  it.each([
    [{ status: 'failed', code: 'payment_required', reason: 'no credits' }, 'payment_required'],
    [{ status: 'failed', code: 'failed', reason: 'the browser crashed' }, 'failed'],
    [{ status: 'failed', code: 'validation', reason: 'dialog bomb' }, 'validation'],
  ] as const)('turns the outcome %o into a %s error', async (outcome, code) => {
    orchestrator = createFakeOrchestrator();
    orchestrator.endWith(outcome);

    await expectDomainError(render(), code);
  });

  it('refuses the repeat of a render that failed as the request\'s fault at once, recording and charging nothing; other data still renders', async () => {
    world.engine.failWith(new DomainError('validation', "The template's scripts kept the page busy without a pause for 3 s"));
    const service = renderService();
    const input = { template: templateId, data: { title: 'Hostile' }, cache: false };
    await expectDomainError(service.render(contextOf(), input), 'validation');
    const eventsAfterFirst = (await world.log()).length;
    const creditsAfterFirst = account()?.creditsUsed;
    orchestrator.started.length = 0;

    const repeat = await expectDomainError(service.render(contextOf(), input), 'validation');

    expect(repeat.message).toBe("Render failed: The template's scripts kept the page busy without a pause for 3 s");
    expect(repeat.details[0]).toMatch(/failed moments ago/);
    await expectNothingAccepted(eventsAfterFirst);
    expect(account()?.creditsUsed).toBe(creditsAfterFirst);

    world.engine.failWith(null);
    await expect(service.render(contextOf(), { ...input, data: { title: 'Fine' } })).resolves.toMatchObject({ requestId: expect.any(String) });
  });

  it('answers 503 when the render cannot be started, having recorded the request but charged nothing', async () => {
    orchestrator.refuseStarts(new Error('connection refused'));

    const error = await expectDomainError(render(), 'unavailable');

    expect(error).toBeInstanceOf(UnavailableError);
    const last = (await world.log()).at(-1);
    expect(last).toMatchObject({ type: 'RenderRequested', data: { spec: { templateId } } });
    expect(await world.typesOf((last?.data as { requestId: string }).requestId)).toEqual(['RenderRequested']);
    expect(account()?.creditsUsed).toBe(0);
  });
});

describe('render service: a synchronous render begun ahead of its workflow (renders-ahead.ts)', () => {
  const renderAhead = (input: Partial<RenderInput> = {}) =>
    world.renderService({ orchestrator, renderAhead: true }).render(contextOf(), { template: templateId, data: { title: 'Ahead' }, cache: false, ...input });

  it('begins the render as the request is recorded, whether or not its workflow ever runs', async () => {
    orchestrator = createFakeOrchestrator();
    orchestrator.endWith('timeout');

    await expectDomainError(renderAhead(), 'unavailable');

    await vi.waitFor(() => expect(world.engine.rendered).toHaveLength(1));
    expect(world.engine.rendered[0]?.document.html).toContain('<h1>Ahead</h1>');
  });

  it('stores the render begun ahead: one render per request, charged and recorded by the workflow', async () => {
    const answer = await renderAhead();

    expect(world.engine.rendered).toHaveLength(1);
    expect(world.metrics.rendersAhead).toEqual(['taken']);
    expect((await world.storage.get(answer.storageKey ?? ''))?.toString()).toMatch(/^png:.*<h1>Ahead<\/h1>/);
    expect(await world.typesOf(answer.requestId)).toEqual(['RenderRequested', 'RenderCompleted']);
    expect(account()?.creditsUsed).toBe(1);
  });

  it('throws the render away when the workflow refuses the request before rendering (no credits left at the charge)', async () => {
    const refusingCharge = createFakeOrchestrator({
      steps: {
        render: {
          ...world.renderSteps,
          charge: async () => {
            throw new DomainError('payment_required', 'Not enough credits');
          },
        },
      },
    });
    orchestrator = refusingCharge;

    await expectDomainError(renderAhead(), 'payment_required');

    expect(world.engine.rendered).toHaveLength(1);
    expect(world.metrics.rendersAhead).toEqual(['unused']);
    expect(world.storage.keys()).toEqual([]);
  });

  it('throws the render away when the request cannot be recorded, or its workflow cannot start', async () => {
    const append = world.eventStore.append.bind(world.eventStore);
    vi.spyOn(world.eventStore, 'append').mockImplementationOnce(() => Promise.reject(new Error('connection reset')));
    await expect(renderAhead()).rejects.toThrow('connection reset');
    expect(world.metrics.rendersAhead).toEqual(['unused']);
    vi.mocked(world.eventStore.append).mockImplementation(append);

    orchestrator.refuseStarts(new Error('Temporal unreachable'));
    await expectDomainError(renderAhead(), 'unavailable');
    expect(world.metrics.rendersAhead).toEqual(['unused', 'unused']);
    // Nothing was stored or charged for either.
    expect(world.storage.keys()).toEqual([]);
    expect(account()?.creditsUsed).toBe(0);
  });

  it('begins nothing for a render answered by webhook, a video, or a cache hit', async () => {
    await renderAhead({ webhookUrl: 'https://hooks.example.com/renders' });
    expect(world.engine.rendered).toHaveLength(1);
    expect(world.metrics.rendersAhead).toEqual([]);

    const cached = { data: { title: 'Twice' }, cache: true };
    await renderAhead(cached);
    await renderAhead(cached);
    expect(world.engine.rendered).toHaveLength(2);
    expect(world.metrics.rendersAhead).toEqual(['taken']);

    // A video costs more than the account's 10 credits: another organization's, with plenty.
    await world.given.account(OTHER_ORG, { credits: 1000 });
    const videoTemplate = await world.given.template(OTHER_ORG, { editor: 'canvas-html', outputFormat: 'mp4' });
    orchestrator.endWith('timeout');
    const video = await world.renderService({ orchestrator, renderAhead: true }).render(contextOf(OTHER_ORG), { template: videoTemplate, duration: 1000 });
    expect(video).toMatchObject({ status: 'pending' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(world.engine.rendered).toHaveLength(2);
  });
});
