import { SaxesParser } from 'saxes';
import { DomainError } from '../../domain/shared/errors.js';
import { refuseImage } from './image-refusal.js';

/*
 * Building a DOM of an SVG costs far more than its bytes suggest: thousands of nested groups held
 * a request long and took vast memory before anything could refuse them. One pass of an XML
 * tokenizer costs time linear in the size and keeps nothing, so the shape is checked that way first.
 */

/** Real drawings nest a few dozen groups deep; thousands of levels serve only to exhaust a parser. */
export const MAX_SVG_DEPTH = 256;
/**
 * Detailed illustrations stay well under this. Building and sanitizing a DOM of this many elements
 * still fits within a parse's time limit on a small machine; far past it is a DOM bomb.
 */
export const MAX_SVG_ELEMENTS = 20_000;

const SVG_NAMESPACE = 'http://www.w3.org/2000/svg';

/**
 * Refuses text that is not well-formed XML (as browsers read an SVG file), whose root is not an
 * SVG `<svg>` element, or that nests or counts more elements than a drawing needs.
 */
export const assertSvgStructure = (text: string): void => {
  const parser = new SaxesParser({ xmlns: true, position: false });
  let depth = 0;
  let elements = 0;
  parser.on('opentag', (tag) => {
    if (elements === 0 && (tag.local !== 'svg' || tag.uri !== SVG_NAMESPACE)) throw refuseImage('its root element is not an <svg> element in the SVG namespace');
    elements++;
    depth++;
    if (depth > MAX_SVG_DEPTH) throw refuseImage(`it nests elements more than ${MAX_SVG_DEPTH} deep`);
    if (elements > MAX_SVG_ELEMENTS) throw refuseImage(`it has more than ${MAX_SVG_ELEMENTS} elements`);
  });
  parser.on('closetag', () => {
    depth--;
  });
  try {
    parser.write(text).close();
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw refuseImage(`it is not well-formed XML (${error instanceof Error ? error.message : String(error)})`);
  }
  if (elements === 0) throw refuseImage('it has no <svg> element');
};
