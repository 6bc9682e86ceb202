/**
 * The virtual clock of a video: frame i shows the instant i / fps, whatever time it takes to
 * capture, so a loaded machine renders the same frames as an idle one.
 */

/** Frames of a video of `durationMs` at `fps`: the nearest whole number, at least one. */
export const videoFrameCount = (durationMs: number, fps: number): number => Math.max(1, Math.round((durationMs * fps) / 1000));

/** The instant frame `index` shows, in milliseconds from the start. */
export const frameTimeMs = (index: number, fps: number): number => (index * 1000) / fps;
