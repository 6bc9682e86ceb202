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
}

const spec = <V>(check: ValueCheck<V>, defaultValue: V): PropertySpec<V> => ({ check, defaultValue });

const size = (max: number) => number(0, max);
const shape = {
  fill: spec(color, '#cccccc'),
  stroke: spec(color, 'transparent'),
  strokeWidth: spec(size(1000), 0),
};
const svgStyle = { fill: spec(color, '#000000'), stroke: spec(color, 'transparent'), strokeWidth: spec(size(1000), 0) };
const objectFit = spec(oneOf(['cover', 'contain', 'fill', 'none', 'scale-down']), 'cover');

/** The editable properties of each component type, in the order templates list them. */
export const COMPONENT_PROPERTIES = {
  RECTANGLE: { ...shape, radius: spec(size(10_000), 0) },
  CIRCLE: shape,
  TEXT: {
    text: spec(text(10_000), ''),
    fontFamily: spec(fontFamily, 'DejaVu Sans'),
    fontSize: spec(number(1, 1000), 32),
    fontWeight: spec(fontWeight, 400),
    color: spec(color, '#000000'),
    align: spec(oneOf(['left', 'center', 'right', 'justify']), 'left'),
    verticalAlign: spec(oneOf(['top', 'middle', 'bottom']), 'top'),
    lineHeight: spec(number(0.5, 5), 1.2),
    /** Shrinks the font until the text fits the box. */
    autoFit: spec(boolean, false),
    background: spec(color, 'transparent'),
  },
  IMAGE: { src: spec(mediaUrl('image'), ''), objectFit, radius: spec(size(10_000), 0) },
  VIDEO: { src: spec(mediaUrl('video'), ''), objectFit },
  QR_CODE: {
    value: spec(qrValue(2000), 'https://example.com'),
    color: spec(color, '#000000'),
    background: spec(color, '#ffffff'),
  },
  CHART: {
    chartType: spec(oneOf(['bar', 'line', 'pie', 'doughnut']), 'bar'),
    labels: spec(labels, []),
    datasets: spec(datasets, []),
    showLegend: spec(boolean, true),
  },
  SVG_GROUP: { paths: spec(svgPaths, []), viewBox: spec(viewBox, ''), ...svgStyle },
  SVG_PATH: { d: spec(pathData, ''), viewBox: spec(viewBox, ''), ...svgStyle },
  RATING: {
    value: spec(number(0, 100), 0),
    max: spec(integer(1, 20), 5),
    color: spec(color, '#f5b301'),
    emptyColor: spec(color, '#d9d9d9'),
  },
  HTML: { html: spec(html(200_000), '') },
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
