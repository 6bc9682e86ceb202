import type { VideoSegment } from '../../domain/renders/video-segments.js';
import type { VideoFormat } from '../../domain/templates/template-settings.js';
import type { RenderDocument, RenderedFile } from './render-engine.js';

/**
 * An animated page: it defines `window.__seekFrame(timeMs)`, which poses everything on the page for
 * that instant synchronously (or returns a promise that resolves once it has), and shows t=0 until
 * it is called. Its `videoClips` are decoded by the renderer and shown frame by frame.
 */
export interface VideoDocument extends RenderDocument {
  readonly fps: number;
  readonly durationMs: number;
}

export interface VideoOptions {
  /** The organization the video is for: its pages are never shared with another. */
  readonly tenant: string;
  readonly format: VideoFormat;
  readonly quality: number;
  readonly crop: { readonly width: number; readonly height: number } | null;
  /** Only these frames of the video, encoded as a file of their own that starts on a key frame; all when absent. */
  readonly segment?: VideoSegment;
}

export interface VideoProgress {
  /** Frames captured from the page so far (of the segment, when rendering one); a retried render starts again from 0. */
  readonly framesCaptured: number;
  readonly framesTotal: number;
}

export interface VideoRenderRun {
  /** Called as frames are captured, at most once per frame. */
  readonly onProgress?: (progress: VideoProgress) => void;
  /** Stops the capture and the encoder; the render then rejects. */
  readonly signal?: AbortSignal;
}

export interface RenderedVideo extends RenderedFile {
  readonly frames: number;
}

/** Captures every frame of an animated page on a virtual clock and encodes them into a video file. */
export interface VideoRenderer {
  render(document: VideoDocument, options: VideoOptions, run?: VideoRenderRun): Promise<RenderedVideo>;
}

/** Joins segments rendered apart into one video, without re-encoding them. */
export interface VideoJoiner {
  /** `segments` in order, each a file of `format` as the renderer made it. */
  join(segments: readonly Buffer[], format: VideoFormat): Promise<RenderedFile>;
}
