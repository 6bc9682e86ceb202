import DOMPurify from 'dompurify';
import { JSDOM } from 'jsdom';

/*
 * An uploaded SVG is shown by renders and served at its href, so it must not run code or reach
 * anything outside itself: DOMPurify's SVG profile drops scripts, event handlers and foreign
 * content, and these hooks drop every reference that is not to the document itself (or an
 * embedded raster image): href/xlink:href, url() in style attributes, and <style> elements.
 */

const { window } = new JSDOM('');
const purify = DOMPurify(window);

const LOCAL_REFERENCE = /^\s*(#|data:image\/(png|jpeg|gif|webp);base64,)/i;
const EXTERNAL_URL_IN_CSS = /url\s*\(\s*(?!['"]?\s*#)|@import|expression\s*\(/i;

purify.addHook('uponSanitizeAttribute', (_node, data) => {
  const name = data.attrName.toLowerCase();
  if ((name === 'href' || name === 'xlink:href' || name === 'src') && !LOCAL_REFERENCE.test(data.attrValue)) data.keepAttr = false;
  if (name === 'style' && EXTERNAL_URL_IN_CSS.test(data.attrValue)) data.keepAttr = false;
  // Presentation attributes take url() too (fill, filter, mask, clip-path, marker-*).
  if (/url\s*\(/i.test(data.attrValue) && !/^\s*url\(\s*['"]?#[^)]*\)\s*$/i.test(data.attrValue) && name !== 'style') data.keepAttr = false;
});

const SVG_START = /^(\s|<\?xml[^>]*\?>|<!--[\s\S]*?-->|<!doctype\s+svg[^>]*>)*<svg[\s>]/i;

/** Whether the text is an SVG document (an XML prolog, comments or a doctype may come first). */
export const looksLikeSvg = (text: string): boolean => SVG_START.test(text.replace(/^\uFEFF/, ''));

/** The SVG without anything that runs or reaches outside it; empty when nothing of an SVG remains. */
export const sanitizeSvg = (text: string): string => {
  const clean = purify.sanitize(text, {
    USE_PROFILES: { svg: true, svgFilters: true },
    FORBID_TAGS: ['style', 'foreignObject', 'script', 'a'],
    ALLOW_DATA_ATTR: false,
  });
  return String(clean).trim();
};
