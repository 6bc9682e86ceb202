import { describe, expect, it } from 'vitest';
import { foldResultView } from '../../application/results/result-view.js';
import { toResultDetail } from '../../application/results/result-dto.js';
import { videoTiming } from '../../application/renders/request-render/video-timing.js';
import { renderCost } from '../../domain/renders/pricing.js';
import { renderDecider } from '../../domain/renders/render-decider.js';
import type { RenderEvent, RenderProgressed } from '../../domain/renders/render-events.js';
import { frameTimeMs, videoFrameCount } from '../../domain/renders/video-timing.js';
import { DomainError } from '../../domain/shared/errors.js';
import { deciderSpec } from '../support/decider-spec.js';
import { renderCompleted, renderRequested } from '../support/render-events.js';

const now = '2026-01-02T03:04:05.000Z';
const requested = renderRequested({
  requestId: 'v1',
  orgId: 'org-a',
  requestedAt: now,
  credits: 50,
  spec: { editor: 'canvas-html', format: 'mp4', duration: 5000, fps: 30, fileName: 'v1.mp4' },
});
const progressed = (framesDone: number): RenderProgressed => ({ type: 'RenderProgressed', data: { requestId: 'v1', framesDone, framesTotal: 150, at: now } });
const recordProgress = (framesDone: number) => ({ type: 'RecordRenderProgress' as const, data: { requestId: 'v1', framesDone, framesTotal: 150, now } });

describe('video timing', () => {
  it('counts frames of a duration at a frame rate, at least one, and times them on the virtual clock', () => {
    expect(videoFrameCount(5000, 30)).toBe(150);
    expect(videoFrameCount(1000, 24)).toBe(24);
    expect(videoFrameCount(1234, 25)).toBe(31);
    expect(videoFrameCount(1, 24)).toBe(1);
    expect(frameTimeMs(0, 30)).toBe(0);
    expect(frameTimeMs(3, 24)).toBe(125);
  });

  it('takes duration and fps from the request, then the template, then the defaults; canvas-html only', () => {
    const template = { editor: 'canvas-html' as const, recordDuration: 8000, fps: 25 };
    expect(videoTiming(template, 'mp4', {})).toEqual({ duration: 8000, fps: 25 });
    expect(videoTiming(template, 'webm', { duration: 1000, fps: 24 })).toEqual({ duration: 1000, fps: 24 });
    expect(videoTiming({ editor: 'canvas-html', recordDuration: null, fps: null }, 'mp4', {})).toEqual({ duration: 5000, fps: 30 });
    expect(() => videoTiming({ ...template, editor: 'html-editor' }, 'mp4', {})).toThrow(/only available for canvas-html/);
    expect(() => videoTiming(template, 'mp4', { duration: 30001 })).toThrow(DomainError);
  });

  it('costs 10 credits per started second', () => {
    expect(renderCost('mp4', 5000, false)).toBe(50);
    expect(renderCost('webm', 1001, false)).toBe(20);
    expect(renderCost('webm', 30000, true)).toBe(0);
  });
});

describe('render progress', () => {
  const spec = deciderSpec(renderDecider);

  it('is recorded for a pending render when it is ahead of what was recorded', () => {
    spec.given([requested]).when(recordProgress(15)).then([progressed(15)]);
    spec.given([requested, progressed(45)]).when(recordProgress(60)).then([progressed(60)]);
  });

  it('never goes back: a retried attempt reporting from frame 0 again records nothing until it is ahead', () => {
    spec.given([requested, progressed(45)]).when(recordProgress(15)).thenNothingHappens();
    spec.given([requested, progressed(45)]).when(recordProgress(45)).thenNothingHappens();
  });

  it('of a video in segments counts each segment forwards and the video as their sum', () => {
    const segmentProgressed = (index: number, segmentFrames: number, framesDone: number): RenderProgressed => ({
      type: 'RenderProgressed',
      data: { requestId: 'v1', framesDone, framesTotal: 150, at: now, segment: { index, framesDone: segmentFrames } },
    });
    const recordSegment = (segment: number, framesDone: number) => ({ ...recordProgress(framesDone), data: { ...recordProgress(framesDone).data, segment } });
    spec.given([requested]).when(recordSegment(1, 15)).then([segmentProgressed(1, 15, 15)]);
    spec.given([requested, segmentProgressed(1, 15, 15)]).when(recordSegment(0, 20)).then([segmentProgressed(0, 20, 35)]);
    spec.given([requested, segmentProgressed(1, 15, 15), segmentProgressed(0, 20, 35)]).when(recordSegment(1, 30)).then([segmentProgressed(1, 30, 50)]);
    // A segment retried on another worker counts again from 0: nothing until it passes its own best.
    spec.given([requested, segmentProgressed(1, 15, 15), segmentProgressed(0, 20, 35)]).when(recordSegment(1, 10)).thenNothingHappens();
  });

  it('is not recorded once the render has ended, nor for a render that does not exist', () => {
    spec.given([requested, renderCompleted({ requestId: 'v1', completedAt: now })]).when(recordProgress(150)).thenNothingHappens();
    spec.given([]).when(recordProgress(15)).thenThrows('not_found');
  });

  it('shows in the detailed result of a pending video, from 0 of all frames, and no more once it is done', () => {
    const events: RenderEvent[] = [requested];
    expect(toResultDetail(foldResultView(events) ?? fail(), 'href').progress).toEqual({ framesDone: 0, framesTotal: 150 });
    events.push(progressed(90), progressed(30));
    expect(toResultDetail(foldResultView(events) ?? fail(), 'href').progress).toEqual({ framesDone: 90, framesTotal: 150 });
    events.push(renderCompleted({ requestId: 'v1', completedAt: now }));
    expect(toResultDetail(foldResultView(events) ?? fail(), 'href')).not.toHaveProperty('progress');
  });

  it('is absent from image results', () => {
    const image = renderRequested({ requestId: 'i1', orgId: 'org-a', requestedAt: now });
    expect(toResultDetail(foldResultView([image]) ?? fail(), 'href')).not.toHaveProperty('progress');
  });
});

function fail(): never {
  throw new Error('expected a result view');
}
