import { DEFAULT_MIN_FONT_SIZE } from '../../renders/text-fit.js';
import { BARCODE_FORMATS, barcodeProblem, MATRIX_CAPACITY_BYTES, MAX_BARCODE_VALUE_LENGTH } from './barcode-symbols.js';
import type { Component, ComponentType } from './component-document.js';
import {
  boolean,
  color,
  datasets,
  fontFamily,
  fontWeight,
  html,
  integer,
  labels,
  mediaUrl,
  number,
  oneOf,
  pathData,
  qrValue,
  svgPaths,
  text,
  viewBox,
  type ValueCheck,
} from './property-checks.js';

export interface PropertySpec<V = unknown> {
  readonly check: ValueCheck<V>;
  /** The value a component has when its document does not set one. */
  readonly defaultValue: V;
  /** What the property does, where its name and type do not say (the OpenAPI document shows it). */
  readonly description?: string;
}

const spec = <V>(check: ValueCheck<V>, defaultValue: V, description?: string): PropertySpec<V> =>
  description === undefined ? { check, defaultValue } : { check, defaultValue, description };

const size = (max: number) => number(0, max);
const shape = {
  fill: spec(color, '#cccccc'),
  stroke: spec(color, 'transparent'),
  strokeWidth: spec(size(1000), 0),
};
const svgStyle = { fill: spec(color, '#000000'), stroke: spec(color, 'transparent'), strokeWidth: spec(size(1000), 0) };
const objectFit = spec(oneOf(['cover', 'contain', 'fill', 'none', 'scale-down']), 'cover');
/** Every type has it, last: a hidden component is left out of the page (no pixels, no text in a PDF). */
const common = { hidden: spec(boolean, false, 'Leaves the component out of the render: no pixels, no text in a PDF') };

/** The editable properties of each component type, in the order templates list them. */
export const COMPONENT_PROPERTIES = {
  RECTANGLE: { ...shape, radius: spec(size(10_000), 0), ...common },
  CIRCLE: { ...shape, ...common },
  TEXT: {
    text: spec(text(10_000), ''),
    fontFamily: spec(fontFamily, 'DejaVu Sans'),
    fontSize: spec(number(1, 1000), 32),
    fontWeight: spec(fontWeight, 400),
    color: spec(color, '#000000'),
    align: spec(oneOf(['left', 'center', 'right', 'justify']), 'left'),
    verticalAlign: spec(oneOf(['top', 'middle', 'bottom']), 'top'),
    lineHeight: spec(number(0.5, 5), 1.2),
    /**
     * How the size follows the text: kept (none), shrunk from fontSize until the text fits the box
     * (shrink), or grown or shrunk to fill it (fill).
     */
    fit: spec(
      oneOf(['none', 'shrink', 'fill']),
      'none',
      'How the font size follows the text, so that all of it (its ink, marks and fallback glyphs included) fits the box. ' +
        'shrink: from fontSize down to minFontSize, never larger than fontSize; fill: the largest size that fits, from minFontSize up to the box height, growing a short text; ' +
        'none: fontSize as it is (held to maxLines and overflow when maxLines is set). Sizes are tried on a quarter-pixel grid; words are broken only when one word alone is wider than the box at minFontSize. ' +
        "The render's result reports what fitting did (fit: fontSize, lines, truncated)",
    ),
    /** The smallest size fitting goes to. */
    minFontSize: spec(
      number(1, 1000),
      DEFAULT_MIN_FONT_SIZE,
      'The smallest font size, in CSS pixels (1 to 1000), that fit shrink or fill goes to; a text that does not fit whole even at this size is handled by overflow. shrink keeps a fontSize already below it',
    ),
    /** At most this many lines; 0: as many as the box holds. */
    maxLines: spec(
      integer(0, 1000),
      0,
      'The most lines the text may take, a whole number from 0 to 1000; 0 (the default): as many as the box holds. Fitting picks a size that keeps the text to them; with fit none the text keeps fontSize and is held to them by overflow',
    ),
    /** Text that does not fit even at minFontSize (or in maxLines): cut with an ellipsis, cut, or refused with a 400. */
    overflow: spec(
      oneOf(['ellipsis', 'clip', 'error']),
      'ellipsis',
      'What happens to a text that does not fit the box (and maxLines) whole even at minFontSize (with fit none: at fontSize). ' +
        'ellipsis (the default): cut after the last grapheme that fits, followed by \u2026; clip: cut there without it; ' +
        'error: the render fails with a 400 naming the component, and its credit is refunded. A cut text is reported as truncated: true in the result\'s fit',
    ),
    /** The older switch, kept: true means fit `shrink` when fit is `none`. */
    autoFit: spec(boolean, false, 'The older switch, kept for existing templates: true means fit shrink when fit is none; prefer fit'),
    background: spec(color, 'transparent'),
    ...common,
  },
  IMAGE: {
    src: spec(mediaUrl('image'), ''),
    objectFit,
    radius: spec(size(10_000), 0),
    /** An image that fails to load is left out rather than drawn broken. */
    hideOnError: spec(boolean, false, 'An image that fails to load is left out instead of drawn as a broken image; an empty src always is'),
    ...common,
  },
  VIDEO: { src: spec(mediaUrl('video'), ''), objectFit, ...common },
  QR_CODE: {
    value: spec(qrValue(2000), 'https://example.com'),
    color: spec(color, '#000000'),
    background: spec(color, '#ffffff'),
    ...common,
  },
  BARCODE: {
    format: spec(oneOf(BARCODE_FORMATS), 'code128'),
    /** What the format can hold is a rule between the two properties (COMPONENT_RULES). */
    value: spec(
      text(MAX_BARCODE_VALUE_LENGTH, 1),
      '0123456789',
      'What the format holds. code128: ISO 8859-1 text; code39: digits, capitals, space and - . $ / + %; ean13, upca, itf14: 12, 11, 13 digits, ' +
        `and a check digit, which is checked when given and added when not; datamatrix, pdf417: up to ${MATRIX_CAPACITY_BYTES.datamatrix}, ${MATRIX_CAPACITY_BYTES.pdf417} bytes of UTF-8`,
    ),
    color: spec(color, '#000000', 'Bars and text'),
    background: spec(color, '#ffffff', 'Fills the box, quiet zones included'),
    showText: spec(boolean, true, 'The human-readable text under the bars (linear formats)'),
    ...common,
  },
  CHART: {
    chartType: spec(oneOf(['bar', 'line', 'pie', 'doughnut']), 'bar'),
    labels: spec(labels, []),
    datasets: spec(datasets, []),
    showLegend: spec(boolean, true),
    ...common,
  },
  SVG_GROUP: { paths: spec(svgPaths, []), viewBox: spec(viewBox, ''), ...svgStyle, ...common },
  SVG_PATH: { d: spec(pathData, ''), viewBox: spec(viewBox, ''), ...svgStyle, ...common },
  RATING: {
    value: spec(number(0, 100), 0),
    max: spec(integer(1, 20), 5),
    color: spec(color, '#f5b301'),
    emptyColor: spec(color, '#d9d9d9'),
    ...common,
  },
  HTML: { html: spec(html(200_000), ''), ...common },
} as const satisfies Record<ComponentType, Record<string, PropertySpec>>;

type Specs = typeof COMPONENT_PROPERTIES;

/** The values of a component of type T once defaults and render data are applied. */
export type PropsOf<T extends ComponentType> = {
  -readonly [K in keyof Specs[T]]: Specs[T][K] extends PropertySpec<infer V> ? V : never;
};

export const propertySpecsOf = (type: ComponentType): Readonly<Record<string, PropertySpec>> =>
  COMPONENT_PROPERTIES[type] as Readonly<Record<string, PropertySpec>>;

export const propertyKey = (componentId: string, property: string) => `${componentId}.${property}`;

/** A component's property values taken from resolved values (see resolveValues), typed by its type. */
export const propsOf = <T extends ComponentType>(component: Component & { readonly type: T }, values: Readonly<Record<string, unknown>>): PropsOf<T> =>
  Object.fromEntries(
    Object.keys(propertySpecsOf(component.type)).map((name) => [name, values[propertyKey(component.id, name)]]),
  ) as PropsOf<T>;

/** Whether the component is left out of the page, by its resolved values. */
export const isHidden = (component: Component, values: Readonly<Record<string, unknown>>): boolean => values[propertyKey(component.id, 'hidden')] === true;

/** A problem between a component's properties: the ones it concerns, the first being where it is reported. */
export interface RuleProblem {
  readonly properties: readonly [string, ...string[]];
  readonly message: string;
}

/**
 * Rules across a component's properties, checked once each value passed its own check, on the
 * document as stored and on the values of every render alike.
 */
export const COMPONENT_RULES: { readonly [T in ComponentType]?: (props: PropsOf<T>) => RuleProblem | null } = {
  BARCODE: ({ format, value }) => {
    const message = barcodeProblem(format, value);
    return message === null ? null : { properties: ['value', 'format'], message };
  },
};

/** The rule problem of a component whose values by property name are all valid, if any. */
export const ruleProblemOf = (type: ComponentType, props: Readonly<Record<string, unknown>>): RuleProblem | null => {
  const rule = COMPONENT_RULES[type] as ((props: Readonly<Record<string, unknown>>) => RuleProblem | null) | undefined;
  return rule ? rule(props) : null;
};
