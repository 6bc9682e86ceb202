import type { Component, ComponentType } from '../../domain/templates/components/component-document.js';
import { propsOf, type PropsOf } from '../../domain/templates/components/component-properties.js';
import { barcodeSvg } from './barcode.js';
import { chartConfig } from './chart-config.js';
import { escapeHtml, style } from './markup.js';
import { qrCodeSvg } from './qr-code.js';

/** What one component contributes to the page: its inner markup, and a chart to draw once the page runs. */
export interface ComponentMarkup {
  readonly html: string;
  readonly chart?: { readonly canvasId: string; readonly config: ReturnType<typeof chartConfig> };
}

const FILL = 'width:100%;height:100%';

const shape = ({ fill, stroke, strokeWidth }: PropsOf<'CIRCLE'>, radius: string) =>
  `<div style="${FILL};${style({ background: fill, border: `${strokeWidth}px solid ${stroke}`, 'border-radius': radius, 'box-sizing': 'border-box' })}"></div>`;

const JUSTIFY = { top: 'flex-start', middle: 'center', bottom: 'flex-end' } as const;

/** The text's fitting, as the attributes the renderer fits marked elements by (text-fit); none when its size is simply kept. */
const fitAttributes = (componentId: string, props: PropsOf<'TEXT'>) => {
  const mode = props.fit !== 'none' ? props.fit : props.autoFit ? 'shrink' : 'none';
  if (mode === 'none' && props.maxLines === 0) return '';
  return [
    ` data-fit="${mode}" data-fit-id="${escapeHtml(componentId)}"`,
    ` data-min-font-size="${props.minFontSize}" data-overflow="${props.overflow}"`,
    props.maxLines > 0 ? ` data-max-lines="${props.maxLines}"` : '',
  ].join('');
};

const textMarkup = (componentId: string, props: PropsOf<'TEXT'>) => {
  const declarations = style({
    display: 'flex',
    'flex-direction': 'column',
    'justify-content': JUSTIFY[props.verticalAlign],
    overflow: 'hidden',
    'box-sizing': 'border-box',
    background: props.background,
    color: props.color,
    'font-family': `"${props.fontFamily}", sans-serif`,
    'font-size': `${props.fontSize}px`,
    'font-weight': props.fontWeight,
    'line-height': props.lineHeight,
    'text-align': props.align,
    'white-space': 'pre-wrap',
    'overflow-wrap': 'break-word',
  });
  // Fitted text gets the room its ink needs at the box's sides from the fitter (text-fit), as padding.
  return `<div class="cv-text"${fitAttributes(componentId, props)} style="${FILL};${declarations}"><div>${escapeHtml(props.text)}</div></div>`;
};

const mediaStyle = (objectFit: string, extra = '') => `${FILL};display:block;object-fit:${objectFit}${extra}`;

/**
 * No source, no element. An image that may fail quietly removes itself when it does: a handler in
 * the markup is in place before the image can fail (a listener added by the page script could come
 * after a quick failure), and it runs before the page's load event, which the capture waits for.
 */
const imageMarkup = ({ src, objectFit, radius, hideOnError }: PropsOf<'IMAGE'>) =>
  src === ''
    ? ''
    : `<img src="${escapeHtml(src)}" alt=""${hideOnError ? ' onerror="this.remove()"' : ''} style="${mediaStyle(objectFit, `;border-radius:${radius}px`)}">`;

/**
 * The source is an attribute the page script reads: a video render swaps the element for frames it
 * decoded (see the page script), so the browser must not start fetching the source on its own;
 * otherwise the script hands it to the element, muted so it loads without a gesture and shows its
 * first frame.
 */
const videoMarkup = ({ src, objectFit }: PropsOf<'VIDEO'>) =>
  src === '' ? '' : `<video data-cv-video="${escapeHtml(src)}" muted playsinline preload="auto" style="${mediaStyle(objectFit)}"></video>`;

const svg = (viewBox: string, width: number, height: number, content: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${escapeHtml(viewBox || `0 0 ${width} ${height}`)}" width="100%" height="100%">${content}</svg>`;

const pathAttributes = ({ fill, stroke, strokeWidth }: { fill?: string; stroke?: string; strokeWidth?: number }) =>
  [
    fill === undefined ? '' : ` fill="${escapeHtml(fill)}"`,
    stroke === undefined ? '' : ` stroke="${escapeHtml(stroke)}"`,
    strokeWidth === undefined ? '' : ` stroke-width="${strokeWidth}"`,
  ].join('');

const STAR = 'M12 1.8l3.1 6.9 7.3.7-5.5 4.9 1.6 7.4L12 17.9l-6.5 3.8 1.6-7.4-5.5-4.9 7.3-.7z';

/** `max` stars in the empty colour, covered up to `value` by stars in the full colour. */
const ratingMarkup = ({ value, max, color, emptyColor }: PropsOf<'RATING'>, index: number) => {
  const stars = (fill: string) =>
    Array.from({ length: max }, (_, star) => `<path transform="translate(${star * 24} 0)" d="${STAR}" fill="${escapeHtml(fill)}"/>`).join('');
  const clipId = `cv-rating-${index}`;
  const filled = Math.min(value, max) * 24;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${max * 24} 24" width="100%" height="100%">`,
    `<defs><clipPath id="${clipId}"><rect x="0" y="0" width="${filled}" height="24"/></clipPath></defs>`,
    stars(emptyColor),
    `<g clip-path="url(#${clipId})">${stars(color)}</g>`,
    '</svg>',
  ].join('');
};

/** The inner markup of a component, from its resolved property values; index makes ids unique in the page. */
export const componentMarkup = (component: Component, values: Readonly<Record<string, unknown>>, index: number): ComponentMarkup => {
  // The argument only names the type for inference; the values come from the component itself.
  const props = <T extends ComponentType>(_type: T) => propsOf(component as Component & { readonly type: T }, values);
  const { width, height } = component;
  switch (component.type) {
    case 'RECTANGLE': {
      const rectangle = props('RECTANGLE');
      return { html: shape(rectangle, `${rectangle.radius}px`) };
    }
    case 'CIRCLE':
      return { html: shape(props('CIRCLE'), '50%') };
    case 'TEXT':
      return { html: textMarkup(component.id, props('TEXT')) };
    case 'IMAGE':
      return { html: imageMarkup(props('IMAGE')) };
    case 'VIDEO':
      return { html: videoMarkup(props('VIDEO')) };
    case 'QR_CODE': {
      const qr = props('QR_CODE');
      return { html: qrCodeSvg(qr.value, qr.color, qr.background) };
    }
    case 'BARCODE':
      return { html: barcodeSvg(props('BARCODE'), { width, height }) };
    case 'CHART': {
      const canvasId = `cv-chart-${index}`;
      return { html: `<canvas id="${canvasId}" width="${width}" height="${height}"></canvas>`, chart: { canvasId, config: chartConfig(props('CHART')) } };
    }
    case 'SVG_GROUP': {
      const group = props('SVG_GROUP');
      const paths = group.paths.map((path) => `<path d="${escapeHtml(path.d)}"${pathAttributes(path)}/>`).join('');
      return { html: svg(group.viewBox, width, height, `<g${pathAttributes(group)}>${paths}</g>`) };
    }
    case 'SVG_PATH': {
      const path = props('SVG_PATH');
      return { html: svg(path.viewBox, width, height, `<path d="${escapeHtml(path.d)}"${pathAttributes(path)}/>`) };
    }
    case 'RATING':
      return { html: ratingMarkup(props('RATING'), index) };
    case 'HTML':
      // The template owner's own markup, as in html-editor templates; the page's network guard still applies.
      return { html: `<div style="${FILL};overflow:hidden">${props('HTML').html}</div>` };
  }
};
