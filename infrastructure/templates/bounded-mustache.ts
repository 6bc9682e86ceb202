import Mustache from 'mustache';
import { LRUCache } from 'lru-cache';

/**
 * mustache keeps the tokens of every distinct template string it ever parsed in a plain object.
 * Template content costs nothing to replace and renders can be asked of any revision, so that cache
 * grows with the heap until the process dies. This one keeps the most recently used templates, up
 * to a size in characters of template text (tokens take about as much again).
 */
export const MUSTACHE_CACHE_LIMITS = { entries: 512, characters: 16 * 1024 * 1024 } as const;

export const boundedTemplateCache = (limits: { readonly entries: number; readonly characters: number }) =>
  new LRUCache<string, string>({
    max: limits.entries,
    maxSize: limits.characters,
    // A template bigger than the whole cache is parsed every time rather than evicting everything else.
    maxEntrySize: limits.characters,
    sizeCalculation: (_tokens, key) => Math.max(1, key.length),
  });

const templateCache = boundedTemplateCache(MUSTACHE_CACHE_LIMITS);
Mustache.templateCache = templateCache;

/** Every use of mustache imports it from here, so none can run with the unbounded default cache. */
export { Mustache, templateCache as mustacheTemplateCache };
