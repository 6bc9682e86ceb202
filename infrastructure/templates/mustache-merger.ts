import { validationError } from '../../domain/shared/errors.js';
import { Mustache } from './bounded-mustache.js';
import type { TemplateMerger } from '../../application/ports/render-engine.js';

/**
 * A merged document at most this long (characters): lists repeat their section once per item, and a
 * small template over a long list can make a document no render should have to lay out.
 */
export const MAX_MERGED_CHARACTERS = 10 * 1024 * 1024;

/** Mustache semantics: `{{name}}` is HTML-escaped, `{{{name}}}` and `{{& name}}` insert raw HTML. */
export const mustacheMerger: TemplateMerger = {
  merge: (html, data) => {
    const merged = Mustache.render(html, data);
    if (merged.length > MAX_MERGED_CHARACTERS) {
      throw validationError(`The template merged with this data is ${merged.length} characters long; at most ${MAX_MERGED_CHARACTERS}`);
    }
    return merged;
  },
};
