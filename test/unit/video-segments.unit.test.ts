import { describe, expect, it } from 'vitest';
import { planVideoSegments } from '../../domain/renders/video-segments.js';

describe('planVideoSegments', () => {
  it('keeps a short video whole', () => {
    expect(planVideoSegments(150, 150)).toEqual([{ start: 0, end: 150 }]);
    expect(planVideoSegments(224, 150)).toEqual([{ start: 0, end: 224 }]);
    expect(planVideoSegments(1, 30)).toEqual([{ start: 0, end: 1 }]);
  });

  it('keeps a video whole when segmenting is off', () => {
    expect(planVideoSegments(900, 0)).toEqual([{ start: 0, end: 900 }]);
  });

  it('cuts a long video into contiguous segments of nearly equal length that cover every frame once', () => {
    for (const [total, per] of [
      [900, 150],
      [901, 150],
      [1799, 300],
      [225, 150],
      [97, 10],
    ] as const) {
      const segments = planVideoSegments(total, per);
      expect(segments.length).toBe(Math.round(total / per));
      expect(segments[0]?.start).toBe(0);
      expect(segments.at(-1)?.end).toBe(total);
      segments.slice(1).forEach((segment, index) => expect(segment.start).toBe(segments[index]?.end));
      const lengths = segments.map((segment) => segment.end - segment.start);
      expect(Math.max(...lengths) - Math.min(...lengths)).toBeLessThanOrEqual(1);
    }
  });

  it('refuses a video without frames', () => {
    expect(() => planVideoSegments(0, 150)).toThrow(RangeError);
  });
});
