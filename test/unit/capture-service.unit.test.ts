import { beforeEach, describe, expect, it } from 'vitest';
import type { CaptureRequestInput } from '../../application/captures/capture-service.js';
import { DomainError, UnavailableError } from '../../domain/shared/errors.js';
import { AccountRow, ResultRow } from '../../infrastructure/read-models/entities.js';
import { contextOf, createWorld, ORG, OTHER_ORG, PRIVATE_HOST, type World } from '../support/application-world.js';
import { expectDomainError } from '../support/expect-domain-error.js';
import { createFakeOrchestrator } from '../support/fake-orchestrator.js';

/**
 * Given/when/then for screenshots and PDFs of web pages on the in-memory event store: the real
 * capture service, render decider and capture steps; a fake browser and orchestrator.
 */

const PAGE = 'https://example.com/pricing';

let world: World;

const capture = (input: Partial<CaptureRequestInput> = {}, context = contextOf(), service = world.captureService()) =>
  service.capture(context, { kind: 'screenshot', url: PAGE, width: 1024, height: 768, ...input } as CaptureRequestInput);

const account = (orgId = ORG) => world.readModels.rows(AccountRow).find((row) => row.orgId === orgId);

beforeEach(async () => {
  world = createWorld();
  await world.given.account(ORG, { credits: 5 });
});

describe('capture service: accepting a capture', () => {
  it('records the screenshot request, captures it synchronously and answers with the request as sent', async () => {
    const answer = await capture({ waitTime: 200 });

    const { requestId } = answer;
    expect(answer).toEqual({
      requestId,
      href: `https://renders.test/files/${requestId}/${requestId}.png`,
      request: { url: PAGE, width: 1024, height: 768, waitTime: 200 },
    });
    expect(world.orchestrator.started).toEqual([{ kind: 'capture', requestId, webhook: false }]);
    const [requested, completed] = await world.streamOf(requestId);
    expect(requested).toMatchObject({
      type: 'CaptureRequested',
      data: { orgId: ORG, credits: 1, webhookUrl: null, capture: { kind: 'screenshot', url: PAGE, width: 1024, height: 768, waitTime: 200, fileName: `${requestId}.png` } },
    });
    expect(completed).toMatchObject({ type: 'RenderCompleted', data: { storageKey: `${ORG}/${requestId}/${requestId}.png`, contentType: 'image/png', cached: false } });
    expect(world.capturer.captured).toEqual([{ url: PAGE, tenant: ORG }]);
    expect(account()?.creditsUsed).toBe(1);
    expect(world.readModels.rows(ResultRow).find((row) => row.requestId === requestId)).toMatchObject({ kind: 'screenshot', url: PAGE, status: 'done', format: 'png' });
  });

  it('captures a PDF at the size of its paper format', async () => {
    const { requestId } = await capture({ kind: 'pdf', format: 'Letter' } as Partial<CaptureRequestInput>);

    const [requested, completed] = await world.streamOf(requestId);
    // 215.9 x 279.4 mm at 96 CSS pixels per inch.
    expect(requested?.data).toMatchObject({ capture: { kind: 'pdf', pdfFormat: 'Letter', width: 816, height: 1056, fileName: `${requestId}.pdf` } });
    expect(completed?.data).toMatchObject({ contentType: 'application/pdf' });
  });

  it('answers at once when the outcome goes to a webhook', async () => {
    const slow = createFakeOrchestrator();
    slow.endWith('timeout');

    const answer = await capture({ webhookUrl: 'https://hooks.example.com/captures' }, contextOf(), world.captureService({ orchestrator: slow }));

    expect(slow.started).toEqual([{ kind: 'capture', requestId: answer.requestId, webhook: true }]);
    expect(answer.request).toMatchObject({ webhookUrl: 'https://hooks.example.com/captures' });
    expect(await world.typesOf(answer.requestId)).toEqual(['CaptureRequested']);
  });
});

describe('capture service: refused before anything is recorded', () => {
  const expectNothingRecorded = async (before: number) => {
    expect(await world.log()).toHaveLength(before);
    expect(world.orchestrator.started).toEqual([]);
    expect(world.capturer.captured).toEqual([]);
  };

  it.each<[string, Partial<CaptureRequestInput>, string]>([
    ['a page on a private address', { url: `http://${PRIVATE_HOST}/admin` }, `http://${PRIVATE_HOST}/admin`],
    ['a webhook on a private address', { webhookUrl: `http://${PRIVATE_HOST}/hook` }, `http://${PRIVATE_HOST}/hook`],
  ])('refuses %s with 400', async (_case, input, refused) => {
    const before = (await world.log()).length;

    await expectDomainError(capture(input), 'validation');

    await expectNothingRecorded(before);
    expect(world.urls.checked).toContain(refused);
  });

  it('refuses with 402 an organization without credits left', async () => {
    await world.given.account(OTHER_ORG, { credits: 0 });
    const before = (await world.log()).length;

    await expectDomainError(capture({}, contextOf(OTHER_ORG)), 'payment_required');

    await expectNothingRecorded(before);
  });

  it('refuses a key without the render scope', async () => {
    const before = (await world.log()).length;

    await expectDomainError(capture({}, contextOf(ORG, ['templates'])), 'forbidden');

    await expectNothingRecorded(before);
  });

  it('refuses with 503 when too many synchronous captures wait already', async () => {
    const before = (await world.log()).length;

    await expectDomainError(capture({}, contextOf(), world.captureService({ maxPending: 0 })), 'unavailable');

    await expectNothingRecorded(before);
  });
});

describe('capture service: how the capture ended', () => {
  it('answers 400 for a page that led somewhere the service may not go, refunding the charge', async () => {
    world.capturer.failWith(new DomainError('validation', 'the page redirected to a private address'));

    const error = await expectDomainError(capture(), 'validation');

    expect(error.message).toBe('Render failed: the page redirected to a private address');
    const requestId = world.orchestrator.started[0]?.requestId ?? '';
    expect(await world.typesOf(requestId)).toEqual(['CaptureRequested', 'RenderFailed']);
    expect(account()?.creditsUsed).toBe(0);
  });

  it('answers 503 with a Retry-After when no browser had room', async () => {
    world.capturer.failWith(new UnavailableError('every browser is busy', 9));

    const error = await expectDomainError(capture(), 'unavailable');

    expect(error).toMatchObject({ retryAfterSeconds: 9 });
  });

  it('answers 503 when the capture cannot be started, having recorded it but charged nothing', async () => {
    world.orchestrator.refuseStarts(new Error('connection refused'));

    await expectDomainError(capture(), 'unavailable');

    const last = (await world.log()).at(-1);
    expect(last?.type).toBe('CaptureRequested');
    expect(account()?.creditsUsed).toBe(0);
  });
});
