import { beforeEach, describe, expect, it } from 'vitest';
import type { CaptureRequestInput } from '../../application/captures/capture-service.js';
import { FULL_PAGE_MAX_HEIGHT, SCREENSHOT_PIXEL_BUDGET } from '../../domain/renders/capture-events.js';
import { captureSpecOf, type CaptureInput } from '../../domain/renders/capture-request.js';
import { renderEventSchemas } from '../../infrastructure/event-schemas/render-event-schemas.js';
import { boundedHeight } from '../../infrastructure/rendering/page-capture.js';
import { toErrorBody } from '../../interfaces/http/error-mapping.js';
import { parseInput } from '../../interfaces/http/parse-input.js';
import { PdfBody, ScreenshotBody } from '../../interfaces/schemas/v1-schemas.js';
import { contextOf, createWorld, ORG, type World } from '../support/application-world.js';

/** Issue 42's capture options: their bounds (a 400 in the spec's error shape), defaults and recording. */

const URL = 'https://example.com/';
const screenshot = { url: URL, width: 800, height: 600 };

/** The answer REST, tRPC and MCP give a body: parsed, or the 400 it becomes. */
const answerTo = (schema: typeof ScreenshotBody | typeof PdfBody, body: unknown) => {
  try {
    return { parsed: parseInput(schema, body, 'body') };
  } catch (error) {
    return { error: toErrorBody(error) };
  }
};

const refusal = (input: Partial<CaptureInput>) => {
  try {
    captureSpecOf({ kind: 'screenshot', ...screenshot, ...input } as CaptureInput, 'r1');
  } catch (error) {
    return toErrorBody(error);
  }
  return undefined;
};

describe('screenshot options: bounds', () => {
  it.each([
    ['deviceScaleFactor', 0.5],
    ['deviceScaleFactor', 3.5],
    ['quality', 0],
    ['quality', 101],
    ['quality', 50.5],
    ['format', 'gif'],
    ['colorScheme', 'sepia'],
    ['selector', ''],
    ['selector', 'x'.repeat(501)],
    ['waitForSelector', ' '],
    ['fullPage', 'yes'],
    ['scrollPage', 1],
    ['blockAds', 'true'],
  ])('refuses %s = %j with a 400 naming it', (field, value) => {
    const { error } = answerTo(ScreenshotBody, { ...screenshot, [field]: value });
    expect(error).toMatchObject({ status: 400, msg: 'Invalid body' });
    expect(error?.errors.some((line) => line.startsWith(`body.${field}:`))).toBe(true);
  });

  it('takes every option within its bounds', () => {
    const body = {
      ...screenshot,
      fullPage: true,
      scrollPage: true,
      waitForSelector: 'main',
      format: 'webp',
      quality: 1,
      deviceScaleFactor: 3,
      colorScheme: 'dark',
      blockAds: true,
    };
    expect(answerTo(ScreenshotBody, body).parsed).toEqual(body);
    expect(answerTo(ScreenshotBody, { ...screenshot, selector: '#hero', format: 'jpeg', quality: 100, deviceScaleFactor: 1 }).parsed).toBeDefined();
  });

  it('takes the page options on a PDF, but not the image ones', () => {
    expect(answerTo(PdfBody, { url: URL, scrollPage: true, waitForSelector: 'h1', colorScheme: 'light', blockAds: true }).parsed).toBeDefined();
    for (const field of ['fullPage', 'selector', 'quality', 'deviceScaleFactor']) {
      expect(answerTo(PdfBody, { url: URL, [field]: field === 'fullPage' ? true : field === 'selector' ? 'h1' : 2 }).error?.status).toBe(400);
    }
  });

  it('refuses what no single field says: quality on a PNG, selector with fullPage, more pixels than the budget', () => {
    expect(refusal({ quality: 80 })).toMatchObject({ status: 400, errors: ['quality: applies to format jpeg or webp only'] });
    expect(refusal({ format: 'png', quality: 80 })?.status).toBe(400);
    expect(refusal({ fullPage: true, selector: 'main' })).toMatchObject({ status: 400, errors: ['selector: not with fullPage'] });
    expect(refusal({ width: 5000, height: 5000, deviceScaleFactor: 2 })).toMatchObject({ status: 400, msg: expect.stringMatching(/100000000 pixels, more than the 50000000/) });
    expect(refusal({ width: 5000, height: 5000, deviceScaleFactor: 1.4 })).toBeUndefined();
  });

  it('cuts a full page at the documented height and at the pixel budget', () => {
    expect(boundedHeight(1280, 100_000, 1)).toBe(FULL_PAGE_MAX_HEIGHT);
    expect(boundedHeight(1280, 2_000, 1)).toBe(2_000);
    expect(boundedHeight(5000, 100_000, 1)).toBe(SCREENSHOT_PIXEL_BUDGET / 5000);
    expect(boundedHeight(2000, 100_000, 3)).toBe(Math.floor(SCREENSHOT_PIXEL_BUDGET / (2000 * 9)));
    expect(1280 * boundedHeight(1280, 100_000, 3) * 9).toBeLessThanOrEqual(SCREENSHOT_PIXEL_BUDGET);
  });
});

describe('screenshot options: the recorded capture', () => {
  it('records nothing new for a capture without options: the same spec and file as before', () => {
    expect(captureSpecOf({ kind: 'screenshot', ...screenshot }, 'r1')).toEqual({
      kind: 'screenshot',
      ...screenshot,
      waitTime: 0,
      pdfFormat: null,
      fileName: 'r1.png',
      expires: null,
    });
  });

  it('records the options asked, and names the file after the format', () => {
    expect(captureSpecOf({ kind: 'screenshot', ...screenshot, format: 'jpeg', quality: 70, fullPage: true, scrollPage: true, blockAds: true, colorScheme: 'dark', deviceScaleFactor: 2 }, 'r1')).toMatchObject({
      fileName: 'r1.jpg',
      format: 'jpeg',
      quality: 70,
      fullPage: true,
      scrollPage: true,
      blockAds: true,
      colorScheme: 'dark',
      deviceScaleFactor: 2,
    });
    expect(captureSpecOf({ kind: 'screenshot', ...screenshot, format: 'webp' }, 'r2').fileName).toBe('r2.webp');
    expect(captureSpecOf({ kind: 'pdf', url: URL, format: 'A5', scrollPage: true, colorScheme: 'dark' }, 'r3')).toMatchObject({ pdfFormat: 'A5', scrollPage: true, colorScheme: 'dark', fileName: 'r3.pdf' });
    expect(captureSpecOf({ kind: 'pdf', url: URL, format: 'A5' }, 'r3')).not.toHaveProperty('format');
  });

  it('reads a CaptureRequested recorded before the options as one without them, and one with them as it was', () => {
    const { schema } = renderEventSchemas.CaptureRequested;
    const old = {
      requestId: 'r1',
      orgId: 'org-a',
      request: screenshot,
      capture: { kind: 'screenshot', ...screenshot, waitTime: 0, pdfFormat: null, fileName: 'r1.png', expires: null },
      credits: 1,
      webhookUrl: null,
      requestedAt: '2026-01-02T03:04:05.000Z',
    };
    const parsed = schema.parse(old);
    expect(parsed.capture).toEqual(old.capture);
    expect(parsed.capture.fullPage).toBeUndefined();
    const withOptions = { ...old, capture: { ...old.capture, fullPage: true, scrollPage: true, selector: '#a', waitForSelector: '#b', format: 'webp', quality: 60, deviceScaleFactor: 2, colorScheme: 'dark', blockAds: true } };
    expect(schema.parse(withOptions)).toEqual(withOptions);
    expect(schema.safeParse({ ...old, capture: { ...old.capture, format: 'gif' } }).success).toBe(false);
  });
});

describe('capture service with options', () => {
  let world: World;
  beforeEach(async () => {
    world = createWorld();
    await world.given.account(ORG, { credits: 5 });
  });

  it('records the options in the event, so a retried or replayed capture does the same, and charges 1 credit as before', async () => {
    const input = { kind: 'screenshot', ...screenshot, fullPage: true, scrollPage: true, format: 'webp', quality: 60, blockAds: true, colorScheme: 'dark' } as CaptureRequestInput;
    const answer = await world.captureService().capture(contextOf(), input);
    expect(answer.href).toMatch(/\.webp$/);
    expect(answer.request).toMatchObject({ fullPage: true, scrollPage: true, format: 'webp', quality: 60, blockAds: true, colorScheme: 'dark' });
    const [requested] = await world.streamOf(answer.requestId);
    expect(requested).toMatchObject({
      type: 'CaptureRequested',
      data: { credits: 1, capture: { fullPage: true, scrollPage: true, format: 'webp', quality: 60, blockAds: true, colorScheme: 'dark' } },
    });
  });

  it('refuses an incoherent request before anything is recorded or charged', async () => {
    await expect(world.captureService().capture(contextOf(), { kind: 'screenshot', ...screenshot, quality: 50 } as CaptureRequestInput)).rejects.toMatchObject({ code: 'validation' });
    expect(world.orchestrator.started).toEqual([]);
  });
});
