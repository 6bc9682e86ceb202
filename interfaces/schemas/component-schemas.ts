import { z } from 'zod';
import { validationError } from '../../domain/shared/errors.js';
import {
  COMPONENT_TYPES,
  componentLabel,
  EASINGS,
  type ComponentDocument,
  type ComponentType,
} from '../../domain/templates/components/component-document.js';
import { COMPONENT_PROPERTIES, propertySpecsOf, type PropertySpec } from '../../domain/templates/components/component-properties.js';
import { color } from '../../domain/templates/components/property-checks.js';
import { RECORD_DURATION } from '../../domain/templates/template-settings.js';

/** Numbers with a message a designer can act on, rather than zod's generic one. */
const between = (min: number, max: number, integer = false) => {
  const message = `must be a ${integer ? 'whole ' : ''}number from ${min} to ${max}`;
  const base = z.number({ error: message }).min(min, message).max(max, message);
  return integer ? base.int(message) : base;
};

const COORDINATE = 100_000;
const coordinate = between(-COORDINATE, COORDINATE);
const extent = between(0, COORDINATE);
const opacity = between(0, 1);
const rotation = between(-36_000, 36_000);

const AnimatedValues = z
  .strictObject({ x: coordinate, y: coordinate, scale: between(0, 100), rotation, opacity })
  .partial()
  .meta({ id: 'AnimatedValues', description: 'x and y are the top-left corner in page pixels; rotation in degrees' });

const tween = {
  offset: between(0, RECORD_DURATION.max, true).meta({ description: 'Milliseconds from the start of the video' }),
  duration: between(0, RECORD_DURATION.max, true).meta({ description: 'Milliseconds' }),
  easing: z.enum(EASINGS).optional().meta({ description: 'linear when absent; the CSS curves of the same names' }),
};

export const ComponentAnimationSchema = z
  .strictObject({
    enter: z.strictObject({ ...tween, from: AnimatedValues }).optional(),
    keyframes: z.array(z.strictObject({ ...tween, to: AnimatedValues })).max(50).optional(),
    exit: z.strictObject({ ...tween, to: AnimatedValues }).optional(),
  })
  .meta({
    id: 'ComponentAnimation',
    description:
      'canvas-html only. Hidden before enter starts, then moves from `from` to rest; keyframes move the resting state to `to` in turn; exit moves to `to` and hides the component when it ends.',
  });

const geometry = {
  id: z
    .string({ error: 'must be text' })
    .min(1, 'must not be empty')
    .max(100, 'must be at most 100 characters')
    .regex(/^[^.]*$/, 'must not contain a dot (property keys are <componentId>.<property>)'),
  x: coordinate,
  y: coordinate,
  width: extent,
  height: extent,
  rotation: rotation.optional().meta({ description: 'Degrees, clockwise, around the centre' }),
  opacity: opacity.optional(),
  zIndex: between(-10_000, 10_000, true).optional().meta({ description: 'Stacking order; list order when absent' }),
  locked: z.boolean({ error: 'must be true or false' }).optional().meta({ description: 'Render data cannot change a locked component' }),
  animation: ComponentAnimationSchema.optional(),
};

/** Property values are checked by the domain's own rules, so the document and render data obey the same ones. */
const propertyField = (spec: PropertySpec) =>
  z
    .unknown()
    .optional()
    .superRefine((value, context) => {
      if (value === undefined) return;
      const result = spec.check.check(value, false);
      if (!result.ok) context.addIssue({ code: 'custom', message: result.message });
    })
    .meta({
      description: [
        spec.description,
        spec.check.options ? `${spec.check.input}: one of ${spec.check.options.join(', ')}` : spec.check.input,
        `${JSON.stringify(spec.defaultValue)} when absent`,
      ]
        .filter((part) => part !== undefined)
        .join('; '),
    });

const pascalCase = (type: ComponentType) =>
  type
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

/** Typed by name, so typed clients (tRPC) see each type's own properties. */
type PropertyFields<T extends ComponentType> = { [K in keyof (typeof COMPONENT_PROPERTIES)[T]]: ReturnType<typeof propertyField> };

const componentSchema = <T extends ComponentType>(type: T) =>
  z
    .strictObject({
      type: z.literal(type),
      ...geometry,
      ...(Object.fromEntries(Object.entries(propertySpecsOf(type)).map(([name, spec]) => [name, propertyField(spec)])) as PropertyFields<T>),
    })
    .meta({ id: `${pascalCase(type)}Component` });

type AnyComponentSchema = { [T in ComponentType]: ReturnType<typeof componentSchema<T>> }[ComponentType];
const componentSchemas = COMPONENT_TYPES.map(componentSchema) as [AnyComponentSchema, ...AnyComponentSchema[]];

export const ComponentDocumentBody = z
  .strictObject({
    background: propertyField({ check: color, defaultValue: '#ffffff' }).meta({ description: 'Page background colour; white when absent' }),
    components: z
      .array(z.discriminatedUnion('type', componentSchemas, { error: `must be one of ${COMPONENT_TYPES.join(', ')}` }))
      .max(500, 'at most 500 components'),
  })
  .meta({
    id: 'ComponentDocument',
    description:
      'Components of a canvas-editor or canvas-html template, drawn in list order (zIndex overrides). Each type-specific field is a property, keyed `<id>.<field>` in render data.',
  });

const segment = (part: PropertyKey) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`);

/** `components[2] (id 'title').fontSize` for a path into a component, the plain path otherwise. */
const pathLabel = (path: readonly PropertyKey[], input: unknown): string => {
  const [root, index, ...rest] = path;
  if (root === 'components' && typeof index === 'number') {
    const components = (input as { components?: unknown[] } | null)?.components;
    const id = (components?.[index] as { id?: unknown } | undefined)?.id;
    return componentLabel(index, id) + rest.map(segment).join('');
  }
  return path.map(segment).join('').replace(/^\./, '');
};

/** Validates a components body; each problem names the component (index and id) and the property. */
export const parseComponentDocument = (input: unknown): ComponentDocument => {
  const result = ComponentDocumentBody.safeParse(input);
  // Values checked in superRefine are `unknown` to zod's types; the checks above made them what the document declares.
  if (result.success) return result.data as ComponentDocument;
  const problems = result.error.issues.flatMap((issue) => {
    const label = pathLabel(issue.path, input);
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => `${label ? `${label}.` : ''}${key}: unknown field`);
    return [`${label || 'body'}: ${issue.message}`];
  });
  throw validationError('Invalid components', problems);
};
