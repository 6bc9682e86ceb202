import { reachesOutside } from './css-references.js';
import { refuseImage } from './image-refusal.js';
import { assertSvgStructure } from './svg-structure.js';

/*
 * An uploaded SVG is shown by renders and served at its href, so it must not run code or reach
 * anything outside itself: DOMPurify's SVG profile drops scripts, event handlers and foreign
 * content, and these hooks drop every reference that is not to the document itself (or an
 * embedded raster image): href/xlink:href, url() and other loading functions in any attribute
 * (style and presentation attributes alike, read with CSS escapes undone), <style> elements, and
 * namespace declarations below the root, which could switch part of the drawing to XHTML.
 *
 * The file is parsed as XML, as a browser reads an SVG file, so the sanitizer and the browser see
 * the same elements; an HTML parser reads some markup (CDATA, foreign content) differently.
 */

const SVG_NAMESPACE = 'http://www.w3.org/2000/svg';
const XLINK_NAMESPACE = 'http://www.w3.org/1999/xlink';
/** The namespaces the root may declare; elements and attributes of any other are dropped. */
const ROOT_DECLARATIONS = new Map([
  ['xmlns', SVG_NAMESPACE],
  ['xmlns:xlink', XLINK_NAMESPACE],
]);

/**
 * Attributes that hold only numbers and path commands, never a URL: DOMPurify's URL check (a copy
 * of the value without white space, then a regular expression) is slow on a path of megabytes.
 * The hook below still reads them.
 */
const GEOMETRY_ATTRIBUTES = ['d', 'points', 'transform', 'viewbox'];

const LOCAL_REFERENCE = /^\s*(#|data:image\/(png|jpeg|gif|webp);base64,)/i;

const isRoot = (node: Element) => node.ownerDocument.documentElement === node;

/** A DOM and DOMPurify over it, loaded on first use: a file refused for its shape never pays for them. */
const loadPurifier = async () => {
  const [{ default: DOMPurify }, { JSDOM }] = await Promise.all([import('dompurify'), import('jsdom')]);
  const { window } = new JSDOM('');
  const purify = DOMPurify(window);
  purify.addHook('uponSanitizeAttribute', (node, data) => {
    const name = data.attrName.toLowerCase();
    if (name === 'xmlns' || name.startsWith('xmlns:')) {
      data.keepAttr = isRoot(node) && ROOT_DECLARATIONS.get(name) === data.attrValue;
      return;
    }
    if ((name === 'href' || name === 'xlink:href' || name === 'src') && !LOCAL_REFERENCE.test(data.attrValue)) data.keepAttr = false;
    // Style and presentation attributes (fill, filter, mask, clip-path, marker-*) take url() alike.
    if (reachesOutside(data.attrValue)) data.keepAttr = false;
  });
  return { purify, parser: new window.DOMParser(), serializer: new window.XMLSerializer() };
};

let purifier: ReturnType<typeof loadPurifier> | undefined;

/**
 * The SVG without anything that runs or reaches outside it, as XML; empty when nothing of an SVG
 * remains. Refuses (400) text that is not well-formed XML or whose shape is that of a DOM bomb.
 */
export const sanitizeSvg = async (text: string): Promise<string> => {
  assertSvgStructure(text);
  const { purify, parser, serializer } = await (purifier ??= loadPurifier());
  const root = parser.parseFromString(text, 'image/svg+xml').documentElement;
  if (root.namespaceURI !== SVG_NAMESPACE || root.localName !== 'svg') throw refuseImage('it could not be read as an SVG document');
  try {
    purify.sanitize(root, {
      IN_PLACE: true,
      USE_PROFILES: { svg: true, svgFilters: true },
      FORBID_TAGS: ['style', 'foreignObject', 'script', 'a'],
      ALLOW_DATA_ATTR: false,
      ADD_URI_SAFE_ATTR: GEOMETRY_ATTRIBUTES,
    });
    // The root alone: processing instructions and a doctype before it (xml-stylesheet loads a sheet) are left behind.
    return serializer.serializeToString(root).trim();
  } finally {
    // What was removed keeps the whole document alive until the next file otherwise.
    purify.removed.length = 0;
  }
};
