/**
 * The content of canvas-editor and canvas-html templates: an ordered list of positioned
 * components. Each component's type-specific values (text, fill, QR value, ...) are its editable
 * properties, addressed from outside as `<componentId>.<property>` (see component-properties.ts).
 */

export const COMPONENT_TYPES = [
  'RECTANGLE',
  'CIRCLE',
  'TEXT',
  'IMAGE',
  'VIDEO',
  'QR_CODE',
  'BARCODE',
  'CHART',
  'SVG_GROUP',
  'SVG_PATH',
  'RATING',
  'HTML',
] as const;
export type ComponentType = (typeof COMPONENT_TYPES)[number];

export const EASINGS = ['linear', 'ease', 'ease-in', 'ease-out', 'ease-in-out'] as const;
export type Easing = (typeof EASINGS)[number];

/** The values an animation moves; x and y are the component's top-left corner in page pixels. */
export interface AnimatedValues {
  readonly x?: number;
  readonly y?: number;
  readonly scale?: number;
  /** Degrees, clockwise, around the component's centre. */
  readonly rotation?: number;
  readonly opacity?: number;
}

/** A change that starts `offset` ms into the video and takes `duration` ms. */
export interface Tween {
  readonly offset: number;
  readonly duration: number;
  /** linear when absent. */
  readonly easing?: Easing;
}

/**
 * canvas-html only. Before `enter` starts the component is hidden; it then moves from `from` to its
 * resting state. Keyframes move the resting state to `to` one after another. From `exit`'s start it
 * moves to `to` and is hidden once the exit ends.
 */
export interface ComponentAnimation {
  readonly enter?: Tween & { readonly from: AnimatedValues };
  readonly keyframes?: readonly (Tween & { readonly to: AnimatedValues })[];
  readonly exit?: Tween & { readonly to: AnimatedValues };
}

export interface ComponentGeometry {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  /** Degrees, clockwise, around the centre; 0 when absent. */
  readonly rotation?: number;
  /** 0 to 1; 1 when absent. */
  readonly opacity?: number;
  /** Stacking order; the position in the list when absent (later components on top). */
  readonly zIndex?: number;
}

/** Keys every component may carry whatever its type; everything else is a type-specific property. */
export const COMPONENT_BASE_KEYS = ['id', 'type', 'x', 'y', 'width', 'height', 'rotation', 'opacity', 'zIndex', 'locked', 'animation'] as const;

export interface Component extends ComponentGeometry {
  /** Unique in the document; no dot, since property keys are `<id>.<property>`. */
  readonly id: string;
  readonly type: ComponentType;
  /** Locked components' properties cannot be changed by render data. */
  readonly locked?: boolean;
  readonly animation?: ComponentAnimation;
  /** Type-specific property values; absent ones take the type's default. */
  readonly [property: string]: unknown;
}

export interface ComponentDocument {
  /** Page background colour; white when absent. */
  readonly background?: string;
  readonly components: readonly Component[];
}

export const EMPTY_COMPONENT_DOCUMENT: ComponentDocument = { components: [] };

/** How problems name a component: its place in the list and its id, as the caller wrote them. */
export const componentLabel = (index: number, id: unknown): string =>
  typeof id === 'string' ? `components[${index}] (id '${id}')` : `components[${index}]`;
