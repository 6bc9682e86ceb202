import { Mustache } from './bounded-mustache.js';
import type { TemplateMerger } from '../../application/ports/render-engine.js';

/** Mustache semantics: `{{name}}` is HTML-escaped, `{{{name}}}` and `{{& name}}` insert raw HTML. */
export const mustacheMerger: TemplateMerger = {
  merge: (html, data) => Mustache.render(html, data),
};
