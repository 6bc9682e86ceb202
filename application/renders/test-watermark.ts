import type { RenderDocument } from '../ports/render-engine.js';

/**
 * A test key's render carries TEST across it, above everything the template draws: fixed, so a
 * printed document shows it on every page, and unclickable. The document's own markup is left as it is.
 */
const WATERMARK =
  '<div aria-hidden="true" style="position:fixed;inset:0;z-index:2147483647;pointer-events:none;display:flex;align-items:center;justify-content:center;overflow:hidden">' +
  '<div style="transform:rotate(-30deg);font:700 min(28vw,40vh)/1 \'DejaVu Sans\',sans-serif;letter-spacing:.05em;color:rgba(220,0,0,.4);white-space:nowrap">TEST</div></div>';

export const withTestWatermark = (document: RenderDocument): RenderDocument => {
  const end = document.html.lastIndexOf('</body>');
  const html = end < 0 ? `${document.html}${WATERMARK}` : `${document.html.slice(0, end)}${WATERMARK}${document.html.slice(end)}`;
  return { ...document, html };
};
