/** JSON with object keys sorted and undefined members dropped: equal values give equal text, however stored. */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  // As JSON.stringify does (a Date becomes its ISO string), so the hash covers what the store keeps.
  const toJson = (value as { toJSON?: () => unknown }).toJSON;
  if (typeof toJson === 'function') return canonicalJson(toJson.call(value));
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const entries = Object.keys(value)
    .sort()
    .flatMap((key) => {
      const member = (value as Record<string, unknown>)[key];
      return member === undefined ? [] : [`${JSON.stringify(key)}:${canonicalJson(member)}`];
    });
  return `{${entries.join(',')}}`;
};
