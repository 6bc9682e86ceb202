import type { CanvasRenderer } from '../../application/ports/canvas-renderer.js';
import type { Component } from '../../domain/templates/components/component-document.js';
import { isHidden } from '../../domain/templates/components/component-properties.js';
import type { AnimatedComponent } from '../../domain/templates/components/component-timeline.js';
import { chartLibrarySource } from './chart-config.js';
import { componentMarkup, type ComponentMarkup } from './component-markup.js';
import { escapeHtml, scriptJson, style } from './markup.js';
import { TIMELINE_GLOBAL, timelineScript } from './timeline-script.js';
import { VIDEO_CLIPS_GLOBAL } from './video-clip-manifest.js';

const DEFAULT_BACKGROUND = '#ffffff';

/** Text of charts and raw HTML, in a font every machine running the service has (fonts-dejavu-core). */
const DEFAULT_FONT = '"DejaVu Sans", sans-serif';

const elementId = (index: number) => `cv-${index}`;

const wrapper = (component: Component, index: number, markup: ComponentMarkup) => {
  const declarations = style({
    left: `${component.x}px`,
    top: `${component.y}px`,
    width: `${component.width}px`,
    height: `${component.height}px`,
    'z-index': component.zIndex ?? index,
    opacity: component.opacity ?? 1,
    transform: `rotate(${component.rotation ?? 0}deg)`,
  });
  return `<div class="cv" id="${elementId(index)}" data-component="${escapeHtml(component.id)}" style="${declarations}">${markup.html}</div>`;
};

interface Track extends AnimatedComponent {
  readonly element: string;
}

/*
 * Runs once when the page loads, before it is captured. (Text marked data-fit is fitted by the
 * renderer once the page and its fonts have loaded: rendering/text-fit.) __seekFrame is the video renderer's clock: it sets each animated component's state for an
 * instant, synchronously, from the same timeline code the service tests.
 *
 * VIDEO components: a <video> plays on wall-clock time and shows whatever frame it has loaded, so
 * when the video renderer has decoded the sources (its manifest is set) each one becomes an <img>
 * that __seekFrame points at the decoded frame of the instant; __seekFrame then returns a promise
 * that resolves once those frames are decoded, so the capture that follows shows them. Without a
 * manifest (image renders) the <video> loads its source and shows what it has.
 */
const pageScript = (tracks: readonly Track[]) => `(() => {
  const tracks = ${scriptJson(tracks)};
  const clipManifest = window.${VIDEO_CLIPS_GLOBAL};
  const clipImages = [];
  for (const video of document.querySelectorAll('video[data-cv-video]')) {
    const src = video.dataset.cvVideo;
    const clip = clipManifest && Object.hasOwn(clipManifest.clips, src) ? clipManifest.clips[src] : undefined;
    if (!clip) {
      video.src = src;
      continue;
    }
    const image = document.createElement('img');
    image.alt = '';
    image.style.cssText = video.style.cssText;
    video.replaceWith(image);
    clipImages.push({ image, clip, shown: -1 });
  }
  window.__seekFrame = (time) => {
    for (const track of tracks) {
      const state = ${TIMELINE_GLOBAL}.componentStateAt(track, time);
      const element = document.getElementById(track.element);
      element.style.left = state.x + 'px';
      element.style.top = state.y + 'px';
      element.style.transform = 'rotate(' + state.rotation + 'deg) scale(' + state.scale + ')';
      element.style.opacity = String(state.opacity);
      element.style.visibility = state.visible ? 'visible' : 'hidden';
    }
    const decoding = [];
    for (const entry of clipImages) {
      const frame = ${TIMELINE_GLOBAL}.clipFrameAt(time, clipManifest.fps, entry.clip.frames);
      if (frame === entry.shown) continue;
      entry.shown = frame;
      entry.image.src = clipManifest.base + entry.clip.id + '/' + frame + '.jpg';
      decoding.push(entry.image.decode().catch((error) => {
        // Not shown after all: the next seek to this frame tries again (and reports its failure).
        entry.shown = -1;
        throw error;
      }));
    }
    return decoding.length > 0 ? Promise.all(decoding).then(() => undefined) : undefined;
  };
  // The load event waits for the first frames' images; a failure here shows again at the first seek.
  window.__seekFrame(0)?.catch(() => {});
})();`;

const chartScript = (charts: readonly NonNullable<ComponentMarkup['chart']>[]) => `(() => {
  Chart.defaults.font.family = ${scriptJson(DEFAULT_FONT)};
  for (const { canvasId, config } of ${scriptJson(charts)}) new Chart(document.getElementById(canvasId), config);
})();`;

/**
 * Draws a component document as a self-contained page: QR codes and barcodes as inline SVG,
 * charts by the inlined Chart.js with animation off, images and videos by URL (fetched by the
 * browser, through the page's network guard), fonts by family name from those installed.
 */
export const createHtmlCanvasRenderer = (): CanvasRenderer => ({
  async toHtml(document, values, page) {
    // Hidden components are left out whole: no pixels, no text in a PDF, no sources fetched. The
    // others keep their index, so their ids and stacking do not move.
    const parts = document.components.flatMap((component, index) => (isHidden(component, values) ? [] : [{ component, index, markup: componentMarkup(component, values, index) }]));
    const charts = parts.flatMap(({ markup }) => (markup.chart ? [markup.chart] : []));
    const tracks: Track[] = parts
      .filter(({ component }) => component.animation !== undefined)
      .map(({ component, index }) => ({
        element: elementId(index),
        x: component.x,
        y: component.y,
        rotation: component.rotation,
        opacity: component.opacity,
        animation: component.animation,
      }));
    const hasVideo = parts.some(({ component }) => component.type === 'VIDEO');
    const css = [
      `html,body{margin:0;padding:0;width:${page.width}px;height:${page.height}px;overflow:hidden;background:${document.background ?? DEFAULT_BACKGROUND}}`,
      // DejaVu Sans draws some emoji (U+1F600-1F64F) in black and white; emoji-by-default characters take the colour font.
      `body{font-family:${DEFAULT_FONT};font-variant-emoji:unicode}`,
      '.cv{position:absolute;box-sizing:border-box;transform-origin:50% 50%}',
      '.cv canvas{display:block}',
    ].join('');
    return [
      `<!doctype html><html><head><meta charset="utf-8"><style>${css}</style></head><body>`,
      parts.map(({ component, index, markup }) => wrapper(component, index, markup)).join(''),
      charts.length > 0 ? `<script>${await chartLibrarySource()}</script><script>${chartScript(charts)}</script>` : '',
      tracks.length > 0 || hasVideo ? `<script>${timelineScript()}</script>` : '',
      `<script>${pageScript(tracks)}</script>`,
      '</body></html>',
    ].join('');
  },
});
