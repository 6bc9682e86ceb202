import type { Component, ComponentDocument } from './component-document.js';
import { isHidden, propsOf } from './component-properties.js';

/**
 * One distinct source of a document's VIDEO components, and the largest box it is shown in (CSS
 * pixels): the renderer decodes each source once, at a size that is enough for every use of it.
 */
export interface VideoClip {
  readonly src: string;
  readonly width: number;
  readonly height: number;
  /** Some component shows it at its natural size (`objectFit: none`), so it may not be scaled. */
  readonly naturalSize: boolean;
}

const isVideo = (component: Component): component is Component & { readonly type: 'VIDEO' } => component.type === 'VIDEO';

/** The VIDEO sources of a document with `values` applied, each once, in the order they first appear; hidden components show none. */
export const videoClipsOf = (document: ComponentDocument, values: Readonly<Record<string, unknown>>): VideoClip[] => {
  const clips = new Map<string, VideoClip>();
  for (const component of document.components.filter(isVideo)) {
    const { src, objectFit } = propsOf(component, values);
    if (src === '' || isHidden(component, values)) continue;
    const known = clips.get(src);
    clips.set(src, {
      src,
      width: Math.max(known?.width ?? 0, component.width),
      height: Math.max(known?.height ?? 0, component.height),
      naturalSize: (known?.naturalSize ?? false) || objectFit === 'none',
    });
  }
  return [...clips.values()];
};
