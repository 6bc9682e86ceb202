import type { Component } from './types.js';

/**
 * A property's value as a form field holds it (text) and as the component document stores it
 * (typed by the property's input type, as the service lists it). JSON-typed values that do not
 * parse yet stay text and are reported, so a half-typed list never reaches the service.
 */
export type Parsed = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

export const parseValue = (type: string, text: string): Parsed => {
  if (type === 'number') {
    const value = Number(text);
    return text.trim() !== '' && Number.isFinite(value) ? { ok: true, value } : { ok: false, message: 'must be a number' };
  }
  if (type === 'boolean') return { ok: true, value: text === 'true' };
  if (type === 'json') {
    try {
      return { ok: true, value: JSON.parse(text) as unknown };
    } catch {
      return { ok: false, message: 'must be JSON' };
    }
  }
  return { ok: true, value: text };
};

/** The value a component holds for a property by its name, whichever of the properties the service lists for its type. */
export const valueOf = (component: Component, property: string): unknown => {
  const values: Readonly<Record<string, unknown>> = component;
  return values[property];
};

export const formatValue = (value: unknown): string => (value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value));

/** An id the document does not have yet, from the type's name: `text1`, `text2`, ... (no dots, as keys need). */
export const freshId = (type: string, taken: readonly string[]): string => {
  const base = type.toLowerCase().replaceAll('_', '-');
  for (let n = 1; ; n++) if (!taken.includes(`${base}${n}`)) return `${base}${n}`;
};

/** `#rrggbb` of a hex colour (`#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`, alpha dropped), as a colour picker holds it; null for other forms. */
export const hexColor = (value: string): string | null => {
  const match = /^#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i.exec(value.trim());
  if (!match?.[1]) return null;
  const digits = match[1].toLowerCase();
  return digits.length <= 4 ? `#${[...digits.slice(0, 3)].map((digit) => digit + digit).join('')}` : `#${digits.slice(0, 6)}`;
};
