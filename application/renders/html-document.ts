import type { RenderDocument } from '../ports/render-engine.js';

/**
 * A design is clipped to exactly the template's size. A paged document must flow instead: a fixed
 * height would cut it to its first page, and a fixed width would overflow pages whose CSS margins
 * leave less room than the template is wide.
 */
const frameOf = (size: Omit<RenderDocument, 'html'>) =>
  size.paged
    ? 'html,body{margin:0;padding:0;background:#fff}'
    : `html,body{margin:0;padding:0;width:${size.width}px;height:${size.height}px;overflow:hidden;background:#fff}`;

/**
 * Wraps template markup in a page exactly the template's size, or in a document that flows onto
 * pages. The reset comes first so the template's own CSS can still style html and body.
 */
export const htmlDocument = (body: string, css: string, size: Omit<RenderDocument, 'html'>): RenderDocument => ({
  ...size,
  html: [
    '<!doctype html><html><head><meta charset="utf-8">',
    `<style>${frameOf(size)}</style>`,
    `<style>${css}</style>`,
    `</head><body>${body}</body></html>`,
  ].join(''),
});
