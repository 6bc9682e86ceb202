/** Escapes text for HTML content and double-quoted attribute values alike. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char);

/** JSON for inside a <script> element: `<` is escaped so no value can close the element. */
export const scriptJson = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * The value of a style attribute, escaped for its double quotes. The values passed the property
 * checks, so none can end a declaration early; quoted font names are why the escaping is needed.
 */
export const style = (declarations: Readonly<Record<string, string | number>>): string =>
  escapeHtml(
    Object.entries(declarations)
      .map(([name, value]) => `${name}:${value}`)
      .join(';'),
  );
