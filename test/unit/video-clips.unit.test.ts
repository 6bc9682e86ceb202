import { describe, expect, it } from 'vitest';
import type { ComponentDocument } from '../../domain/templates/components/component-document.js';
import { clipFrameAt } from '../../domain/templates/components/component-timeline.js';
import { resolveValues } from '../../domain/templates/components/resolve-values.js';
import { videoClipsOf } from '../../domain/templates/components/video-clips.js';
import { frameTimeMs } from '../../domain/renders/video-timing.js';
import { clipScaleFilter } from '../../infrastructure/video/video-clips.js';

describe('clipFrameAt', () => {
  it('shows decoded frame i at video frame i, whatever the float error of its instant', () => {
    for (const fps of [10, 24, 25, 29.97, 30, 60]) {
      for (let index = 0; index < 200; index++) expect(clipFrameAt(frameTimeMs(index, fps), fps, 1000)).toBe(index);
    }
  });

  it('takes the nearest frame between frames', () => {
    expect(clipFrameAt(140, 10, 100)).toBe(1);
    expect(clipFrameAt(160, 10, 100)).toBe(2);
  });

  it('holds the last frame once the source has ended, and the first before 0', () => {
    expect(clipFrameAt(5000, 10, 15)).toBe(14);
    expect(clipFrameAt(-100, 10, 15)).toBe(0);
    expect(clipFrameAt(1000, 30, 1)).toBe(0);
  });
});

describe('videoClipsOf', () => {
  const video = (id: string, width: number, height: number, extra: Record<string, unknown> = {}) => ({ id, type: 'VIDEO' as const, x: 0, y: 0, width, height, ...extra });

  it('lists each source once, with the largest box it is shown in', () => {
    const document: ComponentDocument = {
      components: [
        video('a', 100, 50, { src: 'https://example.com/a.mp4' }),
        { id: 'r', type: 'RECTANGLE', x: 0, y: 0, width: 10, height: 10 },
        video('b', 40, 80, { src: 'https://example.com/a.mp4' }),
        video('c', 10, 10, { src: 'https://example.com/c.mp4', objectFit: 'none' }),
        video('empty', 10, 10),
      ],
    };
    expect(videoClipsOf(document, resolveValues(document, {}))).toEqual([
      { src: 'https://example.com/a.mp4', width: 100, height: 80, naturalSize: false },
      { src: 'https://example.com/c.mp4', width: 10, height: 10, naturalSize: true },
    ]);
  });

  it('takes the source from the render data', () => {
    const document: ComponentDocument = { components: [video('a', 100, 50, { src: 'https://example.com/a.mp4' })] };
    expect(videoClipsOf(document, resolveValues(document, { 'a.src': 'https://example.com/other.webm' })).map((clip) => clip.src)).toEqual([
      'https://example.com/other.webm',
    ]);
    expect(videoClipsOf(document, resolveValues(document, { 'a.src': '' }))).toEqual([]);
  });
});

describe('clipScaleFilter', () => {
  it('covers the drawn box in device pixels without enlarging the source', () => {
    expect(clipScaleFilter({ src: 'x', width: 100, height: 50.5, naturalSize: false }, 2, 3840)).toBe(
      "scale=w='min(iw,200)':h='min(ih,101)':force_original_aspect_ratio=increase",
    );
  });

  it('keeps the natural size for objectFit none, and bounds every side', () => {
    expect(clipScaleFilter({ src: 'x', width: 100, height: 50, naturalSize: true }, 1, 3840)).toBe(
      "scale=w='min(iw,3840)':h='min(ih,3840)':force_original_aspect_ratio=decrease",
    );
    expect(clipScaleFilter({ src: 'x', width: 10_000, height: 50, naturalSize: false }, 1, 3840)).toContain("w='min(iw,3840)'");
  });
});
