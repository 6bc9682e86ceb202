/**
 * What a video renderer tells a canvas page about the VIDEO sources it decoded, as a global set
 * before the page's own scripts run. Without it (image renders) the page's <video> elements load
 * their sources themselves.
 */
export interface VideoClipManifest {
  /** Frame `f` of clip `id` is at `${base}${id}/${f}.jpg`, answered by the renderer, not the network. */
  readonly base: string;
  /** The rate the clips were decoded at: the video's own. */
  readonly fps: number;
  /** By source URL, as the page's VIDEO components name them. */
  readonly clips: Readonly<Record<string, { readonly id: number; readonly frames: number }>>;
}

export const VIDEO_CLIPS_GLOBAL = '__videoClips';
