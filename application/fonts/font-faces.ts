import type { FontFormat } from '../../domain/accounts/asset-events.js';
import type { RenderDocument } from '../ports/render-engine.js';
import type { FontView } from '../ports/read-models.js';
import { fontAssetUrl } from '../assets/asset-locations.js';

const CSS_FORMATS: Readonly<Record<FontFormat, string>> = { ttf: 'truetype', otf: 'opentype', woff: 'woff', woff2: 'woff2' };

/**
 * An @font-face rule per uploaded font, so a template that names the family (CSS font-family, a TEXT
 * component's fontFamily) gets it. Chromium downloads only the faces a page uses, so declaring all
 * of an organization's fonts costs a render nothing it does not draw. Family names were held to
 * characters that cannot leave the string (see upload-font/font-family.ts).
 */
export const fontFaceCss = (fonts: readonly FontView[]): string =>
  fonts
    .map(
      (font) =>
        `@font-face{font-family:"${font.family}";src:url("${fontAssetUrl(font.id)}") format("${CSS_FORMATS[font.format]}");` +
        `font-weight:${font.weight};font-style:${font.style};font-display:block}`,
    )
    .join('\n');

/** The document with the organization's fonts declared first in its head, before the template's own CSS. */
export const withFontFaces = (document: RenderDocument, fonts: readonly FontView[]): RenderDocument => {
  if (fonts.length === 0) return document;
  const at = document.html.indexOf('<head>');
  if (at < 0) throw new Error('a render document has no <head> to declare fonts in');
  const end = at + '<head>'.length;
  return { ...document, html: `${document.html.slice(0, end)}<style>${fontFaceCss(fonts)}</style>${document.html.slice(end)}` };
};
