import { describe, expect, it } from 'vitest';
import { renderDecider } from '../../domain/renders/render-decider.js';
import type { RenderEvent, RenderRequested } from '../../domain/renders/render-events.js';
import { foldEvents } from '../../domain/shared/decider.js';
import { deciderSpec } from '../support/decider-spec.js';

const spec = deciderSpec(renderDecider);
const now = '2026-01-02T03:04:05.000Z';

const requestedData: RenderRequested['data'] = {
  requestId: 'r1',
  orgId: 'org-a',
  request: { template: 't1' },
  spec: {
    templateId: 't1',
    templateRevision: 1,
    templateName: 'Card',
    editor: 'html-editor',
    format: 'png',
    width: 100,
    height: 50,
    crop: null,
    quality: 80,
    scaleFactor: 1,
    data: {},
    waitTime: 0,
    fileName: 'r1.png',
    expires: null,
    duration: null,
    fps: null,
  },
  cacheKey: 'k',
  credits: 1,
  batchName: null,
  metadata: null,
  webhookUrl: null,
  requestedAt: now,
  dataFrom: null,
};
const requested: RenderEvent = { type: 'RenderRequested', data: requestedData };
const file = { storageKey: 'org-a/r1/r1.png', fileName: 'r1.png', contentType: 'image/png', bytes: 10, width: 100, height: 50 };
const completed: RenderEvent = { type: 'RenderCompleted', data: { ...file, requestId: 'r1', cached: false, sourceRequestId: null, completedAt: now } };
const failed: RenderEvent = { type: 'RenderFailed', data: { requestId: 'r1', reason: 'boom', failedAt: now } };
const complete = { type: 'CompleteRender' as const, data: { ...file, requestId: 'r1', cached: false, sourceRequestId: null, now } };
const fail = { type: 'FailRender' as const, data: { requestId: 'r1', reason: 'boom', now } };
const remove = (orgId = 'org-a') => ({ type: 'DeleteResult' as const, data: { requestId: 'r1', orgId, now } });

describe('RequestRender', () => {
  it('records the whole request', () => spec.given([]).when({ type: 'RequestRender', data: requestedData }).then([requested]));
  it('refuses a second request with the same id', () =>
    spec.given([requested]).when({ type: 'RequestRender', data: requestedData }).thenThrows('conflict'));
});

describe('RequestCachedRender', () => {
  const cachedCommand = { type: 'RequestCachedRender', data: { request: requestedData, file, sourceRequestId: 'r0', now } } as const;
  const servedFromCache: RenderEvent = { type: 'RenderServedFromCache', data: { ...requestedData, credits: 0, file, sourceRequestId: 'r0', completedAt: now } };
  /** How cache hits were recorded before they had an event of their own: logs keep this form. */
  const twoEventHit: RenderEvent[] = [
    { type: 'RenderRequested', data: { ...requestedData, credits: 0 } },
    { type: 'RenderCompleted', data: { ...file, requestId: 'r1', cached: true, sourceRequestId: 'r0', completedAt: now } },
  ];
  it('records a free request, done at once with the earlier file, as one event', () => spec.given([]).when(cachedCommand).then([servedFromCache]));
  it('refuses an id already used', () => spec.given([requested]).when(cachedCommand).thenThrows('conflict'));
  it('refuses an id already used by a cache hit of either form', () => {
    spec.given([servedFromCache]).when(cachedCommand).thenThrows('conflict');
    spec.given(twoEventHit).when(cachedCommand).thenThrows('conflict');
  });
  it('folds the one event into the same render as the two events of older logs', () => {
    const fold = (events: readonly RenderEvent[]) => foldEvents(renderDecider, events);
    expect(fold([servedFromCache])).toEqual(fold(twoEventHit));
    expect(fold([servedFromCache])).toMatchObject({ status: 'done', file: { ...file, owned: false }, request: { credits: 0 } });
  });
});

describe('CompleteRender and FailRender', () => {
  it('completes a pending render', () => spec.given([requested]).when(complete).then([completed]));
  it('a retried completion records nothing more', () => spec.given([requested, completed]).when(complete).thenNothingHappens());
  it('fails a pending render', () => spec.given([requested]).when(fail).then([failed]));
  it('a failure after completion is ignored: the first outcome counts', () => spec.given([requested, completed]).when(fail).thenNothingHappens());
  it('cannot complete an unknown render', () => spec.given([]).when(complete).thenThrows('not_found'));
});

describe('DeleteResult', () => {
  const deleted: RenderEvent = { type: 'ResultDeleted', data: { requestId: 'r1', deletedAt: now } };
  it('deletes a finished result', () => spec.given([requested, completed]).when(remove()).then([deleted]));
  it('deletes a failed result', () => spec.given([requested, failed]).when(remove()).then([deleted]));
  it('a pending render cannot be deleted yet', () => spec.given([requested]).when(remove()).thenThrows('conflict'));
  it('another organization sees nothing to delete', () => spec.given([requested, completed]).when(remove('org-b')).thenThrows('not_found'));
  it('a deleted result is gone', () => spec.given([requested, completed, deleted]).when(remove()).thenThrows('not_found'));
});

describe('the file a render answered with', () => {
  const fileOf = (events: RenderEvent[]) => {
    const state = foldEvents(renderDecider, events);
    return state.status === 'absent' ? null : state.file;
  };

  it('is owned by the render that stored it', () => {
    expect(fileOf([requested, completed])).toEqual({ ...file, owned: true });
  });

  it('is borrowed by a cache hit, and stays borrowed once the result is deleted', () => {
    const hit = renderDecider.decide({ type: 'RequestCachedRender', data: { request: requestedData, file, sourceRequestId: 'r0', now } }, renderDecider.initialState());
    const deleted: RenderEvent = { type: 'ResultDeleted', data: { requestId: 'r1', deletedAt: now } };
    expect(fileOf(hit)).toEqual({ ...file, owned: false });
    expect(fileOf([...hit, deleted])).toEqual({ ...file, owned: false });
  });

  it('does not exist for a failed render', () => {
    expect(fileOf([requested, failed])).toBeNull();
  });
});
