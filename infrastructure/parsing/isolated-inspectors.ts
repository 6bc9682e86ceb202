import type { FontInspector, ImageInspector } from '../../application/ports/asset-inspection.js';
import { assertPlausibleDeclaredSizes } from '../fonts/font-declared-sizes.js';
import { fontFormatOf } from '../fonts/font-format.js';
import { refuseFont } from '../fonts/font-refusal.js';
import { createImageInspector } from '../uploads/image-inspector.js';
import { refuseImage } from '../uploads/image-refusal.js';
import type { ParsingPool } from './parsing-pool.js';

/**
 * Fonts parsed whole by fontkit, in a thread of the pool. A compression bomb is refused from its
 * header first, here: reading a few table entries costs less than waking a thread.
 */
export const isolatedFontInspector = (pool: ParsingPool): FontInspector => ({
  async inspect(content) {
    const format = fontFormatOf(content);
    if (format) assertPlausibleDeclaredSizes(content, format);
    return pool.run({ kind: 'font', content }, refuseFont);
  },
});

/** Images decoded by sharp (libvips works off the JavaScript thread already); SVGs sanitized in a thread of the pool. */
export const isolatedImageInspector = (pool: ParsingPool): ImageInspector => createImageInspector((content) => pool.run({ kind: 'svg', content }, refuseImage));
