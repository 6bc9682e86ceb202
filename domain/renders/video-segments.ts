/**
 * How a long video is cut into segments that separate workers capture and encode at once, then
 * joined without re-encoding. Each segment is encoded on its own, so it starts on a key frame and
 * the join is a copy; frame i of the video is frame i of exactly one segment, posed at i / fps as
 * in a video rendered in one piece.
 */
export interface VideoSegment {
  /** First frame of the segment, an index into the whole video. */
  readonly start: number;
  /** One past the last frame. */
  readonly end: number;
}

/**
 * `framesTotal` cut into segments of about `framesPerSegment` frames, all within a frame of the
 * same length so that no worker holds the others up with a long tail. A video that is not at least
 * one and a half segments long stays whole: a join costs more than it saves on a short video.
 */
export const planVideoSegments = (framesTotal: number, framesPerSegment: number): VideoSegment[] => {
  if (!Number.isInteger(framesTotal) || framesTotal < 1) throw new RangeError(`framesTotal must be a positive integer, got ${framesTotal}`);
  if (!(framesPerSegment > 0) || framesTotal < framesPerSegment * 1.5) return [{ start: 0, end: framesTotal }];
  const count = Math.round(framesTotal / framesPerSegment);
  return Array.from({ length: count }, (_, index) => ({
    start: Math.floor((index * framesTotal) / count),
    end: Math.floor(((index + 1) * framesTotal) / count),
  }));
};
