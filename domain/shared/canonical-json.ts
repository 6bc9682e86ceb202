/** Keys quoted as JSON, by key: events and cache keys repeat a few dozen field names. */
const quotedKeys = new Map<string, string>();
/** Bounds the memory of keys from clients' data, which can be anything. */
const MAX_QUOTED_KEYS = 4_096;

const quotedKey = (key: string): string => {
  const known = quotedKeys.get(key);
  if (known !== undefined) return known;
  const quoted = JSON.stringify(key);
  if (quotedKeys.size < MAX_QUOTED_KEYS) quotedKeys.set(key, quoted);
  return quoted;
};

/**
 * JSON with object keys sorted and undefined members dropped: equal values give equal text, however
 * stored. Built by concatenation, strings and numbers written where they are met: every cache hit
 * hashes its event and its cache key through here.
 */
export const canonicalJson = (value: unknown): string => {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  // As JSON.stringify does (a Date becomes its ISO string), so the hash covers what the store keeps.
  const toJson = (value as { toJSON?: () => unknown }).toJSON;
  if (typeof toJson === 'function') return canonicalJson(toJson.call(value));
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      text += (index > 0 ? ',' : '') + (item === undefined ? 'null' : canonicalJson(item));
    }
    return `${text}]`;
  }
  const keys = Object.keys(value);
  if (keys.length > 1) keys.sort();
  let text = '{';
  let separator = '';
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined) continue;
    text += separator + quotedKey(key) + ':' + canonicalJson(member);
    separator = ',';
  }
  return `${text}}`;
};
