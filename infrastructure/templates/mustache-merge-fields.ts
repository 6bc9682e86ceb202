import { Mustache } from './bounded-mustache.js';
import type { MergeFieldScanner } from '../../application/ports/security.js';
import { validationError } from '../../domain/shared/errors.js';

type Token = [string, string, number, number, Token[]?, number?];

/** Token kinds that read a value: escaped, raw (triple brace or &), sections and inverted sections. */
const VALUE_TOKENS = new Set(['name', '&', '{', '#', '^']);

const collect = (tokens: readonly Token[], into: Set<string>) => {
  for (const [kind, name, , , children] of tokens) {
    if (VALUE_TOKENS.has(kind) && name !== '.') into.add(name);
    if (children) collect(children, into);
  }
};

/** Uses mustache's own parser, so what is listed is exactly what rendering will look up. */
export const mustacheMergeFields: MergeFieldScanner = {
  scan(html) {
    let tokens: Token[];
    try {
      tokens = Mustache.parse(html) as Token[];
    } catch (error) {
      throw validationError('html has invalid merge-field syntax', [`html: ${(error as Error).message}`]);
    }
    const fields = new Set<string>();
    collect(tokens, fields);
    return [...fields];
  },
};
