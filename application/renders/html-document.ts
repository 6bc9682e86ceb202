import type { RenderDocument } from '../ports/render-engine.js';

/**
 * Wraps template markup in a page exactly the template's size. The reset comes first so the
 * template's own CSS can still style html and body.
 */
export const htmlDocument = (body: string, css: string, size: Omit<RenderDocument, 'html'>): RenderDocument => ({
  ...size,
  html: [
    '<!doctype html><html><head><meta charset="utf-8">',
    `<style>html,body{margin:0;padding:0;width:${size.width}px;height:${size.height}px;overflow:hidden;background:#fff}</style>`,
    `<style>${css}</style>`,
    `</head><body>${body}</body></html>`,
  ].join(''),
});
