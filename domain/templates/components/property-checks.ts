/**
 * Rules for property values, shared by the stored document and by render data. Render data comes
 * from query strings and v1 `changes` too, so there a value may be written as text ("42", "true",
 * a JSON list); in the document it must already have its proper type.
 */

export const PROPERTY_INPUTS = ['text', 'color', 'number', 'boolean', 'select', 'url', 'font', 'json', 'html'] as const;
export type PropertyInput = (typeof PROPERTY_INPUTS)[number];

export type CheckResult<V> = { readonly ok: true; readonly value: V } | { readonly ok: false; readonly message: string };

export interface ValueCheck<V> {
  /** The property's input type, as Property.type reports it. */
  readonly input: PropertyInput;
  /** The values a select takes. */
  readonly options?: readonly string[];
  /** `fromText`: also accept the text form of the value (render data). */
  check(value: unknown, fromText: boolean): CheckResult<V>;
}

const ok = <V>(value: V): CheckResult<V> => ({ ok: true, value });
const fail = (message: string): CheckResult<never> => ({ ok: false, message });

const check = <V>(input: PropertyInput, fn: (value: unknown, fromText: boolean) => CheckResult<V>): ValueCheck<V> => ({
  input,
  check: fn,
});

export const text = (max: number, min = 0): ValueCheck<string> =>
  check('text', (value) =>
    typeof value === 'string' && value.length >= min && value.length <= max
      ? ok(value)
      : fail(min > 0 ? `must be text of ${min} to ${max} characters` : `must be text of at most ${max} characters`),
  );

export const html = (max: number): ValueCheck<string> => ({ ...text(max), input: 'html' });

/**
 * The most a QR code holds at error correction level M (version 40) in byte mode, the mode any
 * text can be written in. Text of 2,000 characters can exceed it once encoded (UTF-8 takes up to
 * four bytes a character), so the bound is on bytes: a value that fits the schema but not a code
 * is refused where the property is named, before anything is charged.
 */
export const QR_CAPACITY_BYTES = 2331;

export const qrValue = (maxCharacters: number): ValueCheck<string> => {
  const base = text(maxCharacters, 1);
  return check('text', (value, fromText) => {
    const result = base.check(value, fromText);
    if (!result.ok) return result;
    const bytes = new TextEncoder().encode(result.value).length;
    return bytes <= QR_CAPACITY_BYTES ? result : fail(`holds ${bytes} bytes once encoded; a QR code holds at most ${QR_CAPACITY_BYTES}`);
  });
};

export const number = (min: number, max: number): ValueCheck<number> =>
  check('number', (value, fromText) => {
    const parsed = fromText && typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    return typeof parsed === 'number' && Number.isFinite(parsed) && parsed >= min && parsed <= max
      ? ok(parsed)
      : fail(`must be a number from ${min} to ${max}`);
  });

export const integer = (min: number, max: number): ValueCheck<number> => {
  const base = number(min, max);
  return check('number', (value, fromText) => {
    const result = base.check(value, fromText);
    return result.ok && Number.isInteger(result.value) ? result : fail(`must be a whole number from ${min} to ${max}`);
  });
};

export const boolean: ValueCheck<boolean> = check('boolean', (value, fromText) => {
  if (typeof value === 'boolean') return ok(value);
  if (fromText && (value === 'true' || value === 'false')) return ok(value === 'true');
  return fail('must be true or false');
});

export const oneOf = <const V extends string>(values: readonly V[]): ValueCheck<V> => ({
  ...check('select', (value) =>
    typeof value === 'string' && (values as readonly string[]).includes(value) ? ok(value as V) : fail(`must be one of ${values.join(', ')}`),
  ),
  options: values,
});

/*
 * Colours end up inside CSS and SVG attributes, so only forms that cannot break out of them pass:
 * hex, functional notations of digits, and bare names (named colours, transparent, currentColor).
 */
const COLOR = /^(#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})|(rgb|rgba|hsl|hsla)\([0-9.,%\s/+-]{1,60}\)|[a-z]{3,30})$/i;

export const color: ValueCheck<string> = check('color', (value) =>
  typeof value === 'string' && COLOR.test(value) ? ok(value) : fail('must be a colour: #rgb, #rrggbb, rgb(), rgba(), hsl() or a colour name'),
);

/** Font family names as the fonts list gives them; quoted into CSS, so quotes and backslashes are refused. */
export const fontFamily: ValueCheck<string> = check('font', (value) =>
  typeof value === 'string' && /^[\w \-.]{1,100}$/.test(value) ? ok(value) : fail('must be a font family name (letters, digits, spaces, dashes)'),
);

const FONT_WEIGHT_NAMES: Record<string, number> = { normal: 400, bold: 700 };

export const fontWeight: ValueCheck<number> = check('number', (value, fromText) => {
  const named = typeof value === 'string' ? FONT_WEIGHT_NAMES[value] : undefined;
  const parsed = named ?? (fromText && typeof value === 'string' ? Number(value) : value);
  return typeof parsed === 'number' && Number.isInteger(parsed) && parsed >= 100 && parsed <= 900 && parsed % 100 === 0
    ? ok(parsed)
    : fail('must be 100, 200, ... 900, normal or bold');
});

const MAX_URL_LENGTH = 1_000_000;

/** Empty (nothing shown), an http(s) address, or an inline data: URL of an image or video. */
export const mediaUrl = (kind: 'image' | 'video'): ValueCheck<string> =>
  check('url', (value) => {
    if (value === '') return ok(value);
    if (typeof value !== 'string' || value.length > MAX_URL_LENGTH) return fail(`must be an http(s) or data:${kind} URL`);
    if (value.startsWith(`data:${kind}/`)) return ok(value);
    try {
      const { protocol } = new URL(value);
      return protocol === 'http:' || protocol === 'https:' ? ok(value) : fail(`must be an http(s) or data:${kind} URL`);
    } catch {
      return fail(`must be an http(s) or data:${kind} URL`);
    }
  });

/** SVG path data: commands, numbers and separators only. */
export const pathData: ValueCheck<string> = check('text', (value) =>
  typeof value === 'string' && value.length <= 100_000 && /^[MmZzLlHhVvCcSsQqTtAa0-9eE+\-.,\s]*$/.test(value)
    ? ok(value)
    : fail('must be SVG path data (commands, numbers, commas and spaces)'),
);

/** Empty (the component's own size) or four numbers. */
export const viewBox: ValueCheck<string> = check('text', (value) =>
  typeof value === 'string' && (value === '' || /^\s*(-?[\d.]+[\s,]+){3}-?[\d.]+\s*$/.test(value))
    ? ok(value)
    : fail('must be empty or four numbers "minX minY width height"'),
);

/** Lists and objects travel as JSON text in query strings. */
const structured = <V>(validate: (value: unknown) => CheckResult<V>): ValueCheck<V> =>
  check('json', (value, fromText) => {
    if (fromText && typeof value === 'string') {
      try {
        return validate(JSON.parse(value));
      } catch {
        return fail('must be JSON');
      }
    }
    return validate(value);
  });

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks every item with `item`; the first bad one is reported by its index. */
const listOf = <V>(value: unknown, max: number, what: string, item: (value: unknown) => string | null): CheckResult<V[]> => {
  if (!Array.isArray(value) || value.length > max) return fail(`must be a list of at most ${max} ${what}`);
  for (const [index, entry] of value.entries()) {
    const problem = item(entry);
    if (problem) return fail(`[${index}] ${problem}`);
  }
  return ok(value as V[]);
};

export const labels: ValueCheck<string[]> = structured((value) =>
  listOf<string>(value, 1000, 'labels', (entry) => (typeof entry === 'string' && entry.length <= 200 ? null : 'must be text of at most 200 characters')),
);

export interface ChartDataset {
  readonly label?: string;
  readonly data: readonly number[];
  /** One colour, or one per data point (pie and doughnut slices). */
  readonly color?: string | readonly string[];
}

const isColor = (entry: unknown) => color.check(entry, false).ok;

const datasetProblem = (entry: unknown): string | null => {
  if (!isRecord(entry)) return 'must be an object with data (a list of numbers), label and color';
  const extra = Object.keys(entry).filter((key) => !['label', 'data', 'color'].includes(key));
  if (extra.length > 0) return `has unknown fields ${extra.join(', ')}`;
  if (entry.label !== undefined && (typeof entry.label !== 'string' || entry.label.length > 200)) return 'label must be text of at most 200 characters';
  const data = entry.data;
  if (!Array.isArray(data) || data.length > 1000 || !data.every((point) => typeof point === 'number' && Number.isFinite(point))) {
    return 'data must be a list of at most 1000 numbers';
  }
  const colors = entry.color;
  if (colors !== undefined && !(Array.isArray(colors) ? colors.length <= 1000 && colors.every(isColor) : isColor(colors))) {
    return 'color must be a colour or a list of colours';
  }
  return null;
};

export const datasets: ValueCheck<ChartDataset[]> = structured((value) => listOf<ChartDataset>(value, 20, 'datasets', datasetProblem));

export interface SvgPathItem {
  readonly d: string;
  readonly fill?: string;
  readonly stroke?: string;
  readonly strokeWidth?: number;
}

const svgPathProblem = (entry: unknown): string | null => {
  if (!isRecord(entry)) return 'must be an object with d, fill, stroke and strokeWidth';
  const extra = Object.keys(entry).filter((key) => !['d', 'fill', 'stroke', 'strokeWidth'].includes(key));
  if (extra.length > 0) return `has unknown fields ${extra.join(', ')}`;
  if (!pathData.check(entry.d, false).ok) return 'd must be SVG path data';
  for (const key of ['fill', 'stroke'] as const) {
    if (entry[key] !== undefined && !isColor(entry[key])) return `${key} must be a colour`;
  }
  if (entry.strokeWidth !== undefined && !number(0, 1000).check(entry.strokeWidth, false).ok) return 'strokeWidth must be a number from 0 to 1000';
  return null;
};

export const svgPaths: ValueCheck<SvgPathItem[]> = structured((value) => listOf<SvgPathItem>(value, 500, 'paths', svgPathProblem));
