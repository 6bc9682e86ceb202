/*
 * Which CSS values reach outside the document. The browser reads `u\72l(`, `\75rl(` and
 * `u\000072l(` as `url(`, and skips comments, so the checks read the value as the browser does
 * before looking for the functions that load something.
 */

/** A hex escape: one to six hex digits and the one white space that may end it. */
const ESCAPE = /\\(?:([0-9a-f]{1,6})(?:\r\n|[ \t\n\r\f])?|\r\n|([\s\S]))/gi;
const COMMENT = /\/\*[\s\S]*?(?:\*\/|$)/g;
const NEWLINE = /[\n\r\f]/;

const REPLACEMENT_CHARACTER = '\uFFFD';

const characterOf = (hex: string): string => {
  const codePoint = Number.parseInt(hex, 16);
  const representable = codePoint !== 0 && codePoint <= 0x10ffff && (codePoint < 0xd800 || codePoint > 0xdfff);
  return representable ? String.fromCodePoint(codePoint) : REPLACEMENT_CHARACTER;
};

/** The value as CSS reads it: comments gone and every escape replaced by the character it stands for. */
export const unescapeCss = (value: string): string =>
  value.replace(COMMENT, '').replace(ESCAPE, (_escape, hex: string | undefined, literal: string | undefined) => {
    if (hex !== undefined) return characterOf(hex);
    // An escaped line break continues a string; elsewhere the backslash stands for nothing.
    return literal === undefined || NEWLINE.test(literal) ? '' : literal;
  });

/** url() and src() to anything but an element of the document itself (`url(#id)`); `(?=\S)` keeps the spaces from being given back to the lookahead. */
const OUTSIDE_URL = /\b(?:url|src)\s*\(\s*(?=\S)(?!['"]?\s*#)/i;
/** Functions that load an image or another document, whatever their argument, and the old ways to run script or import a sheet. */
const LOADING_FUNCTION = /(?:\bimage-set|\bimage|\bcross-fade|\belement|\bexpression)\s*\(|@import/i;

/** Whether a CSS value (a style attribute, a presentation attribute, a stylesheet) would load or run anything outside the document. */
export const reachesOutside = (value: string): boolean => {
  const read = unescapeCss(value);
  return OUTSIDE_URL.test(read) || LOADING_FUNCTION.test(read);
};
