import { describe, expect, it } from 'vitest';
import { foldResultView } from '../../application/results/result-view.js';
import { pdfViewport, type CaptureRequested } from '../../domain/renders/capture-events.js';
import { captureSpecOf } from '../../domain/renders/capture-request.js';
import { renderDecider } from '../../domain/renders/render-decider.js';
import type { RenderEvent } from '../../domain/renders/render-events.js';
import { foldEvents } from '../../domain/shared/decider.js';
import { deciderSpec } from '../support/decider-spec.js';

const now = '2026-01-02T03:04:05.000Z';
const captureData: CaptureRequested['data'] = {
  requestId: 'c1',
  orgId: 'org-a',
  request: { url: 'https://example.com/', width: 640, height: 480 },
  capture: captureSpecOf({ kind: 'screenshot', url: 'https://example.com/', width: 640, height: 480 }, 'c1'),
  credits: 1,
  webhookUrl: null,
  requestedAt: now,
};
const requested: RenderEvent = { type: 'CaptureRequested', data: captureData };
const file = { storageKey: 'org-a/c1/c1.png', fileName: 'c1.png', contentType: 'image/png', bytes: 10, width: 640, height: 480 };
const completed: RenderEvent = { type: 'RenderCompleted', data: { ...file, requestId: 'c1', cached: false, sourceRequestId: null, completedAt: now } };

describe('captureSpecOf', () => {
  it('keeps a screenshot at the requested size, as PNG, without waiting by default', () => {
    expect(captureSpecOf({ kind: 'screenshot', url: 'https://a.example/', width: 32, height: 5000 }, 'r1')).toEqual({
      kind: 'screenshot',
      url: 'https://a.example/',
      width: 32,
      height: 5000,
      waitTime: 0,
      pdfFormat: null,
      fileName: 'r1.png',
      expires: null,
    });
  });

  it('lays a PDF out on A4 by default, the paper in CSS pixels', () => {
    expect(captureSpecOf({ kind: 'pdf', url: 'https://a.example/', waitTime: 300, expires: 60 }, 'r2')).toEqual({
      kind: 'pdf',
      url: 'https://a.example/',
      width: 794,
      height: 1123,
      waitTime: 300,
      pdfFormat: 'A4',
      fileName: 'r2.pdf',
      expires: 60,
    });
  });

  it.each([
    ['Letter', 816, 1056],
    ['Ledger', 1632, 1056],
    ['A6', 397, 559],
  ] as const)('sizes %s paper as %dx%d CSS pixels', (format, width, height) => {
    expect(pdfViewport(format)).toEqual({ width, height });
  });
});

describe('a capture in the render aggregate', () => {
  const spec = deciderSpec(renderDecider);

  it('is requested once', () => {
    spec.given([]).when({ type: 'RequestCapture', data: captureData }).then([requested]);
    spec.given([requested]).when({ type: 'RequestCapture', data: captureData }).thenThrows('conflict');
  });

  it('ends and is deleted like a render', () => {
    spec.given([requested]).when({ type: 'CompleteRender', data: { ...file, requestId: 'c1', cached: false, sourceRequestId: null, now } }).then([completed]);
    spec.given([requested, completed]).when({ type: 'DeleteResult', data: { requestId: 'c1', orgId: 'org-a', now } }).then([
      { type: 'ResultDeleted', data: { requestId: 'c1', deletedAt: now } },
    ]);
    expect(foldEvents(renderDecider, [requested, completed])).toMatchObject({ status: 'done', kind: 'capture', file });
  });
});

describe('a capture as a result', () => {
  it('names its URL and kind and has no template', () => {
    expect(foldResultView([requested, completed])).toMatchObject({
      requestId: 'c1',
      kind: 'screenshot',
      url: 'https://example.com/',
      templateId: '',
      status: 'done',
      format: 'png',
      width: 640,
      height: 480,
      cacheKey: null,
      credits: 1,
    });
  });
});
