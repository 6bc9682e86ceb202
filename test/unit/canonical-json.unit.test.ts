import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../domain/shared/canonical-json.js';

/** The rule written plainly: sorted keys, undefined members dropped, everything else as JSON.stringify writes it. */
const reference = (value: unknown): string => {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const toJson = (value as { toJSON?: () => unknown }).toJSON;
  if (typeof toJson === 'function') return reference(toJson.call(value));
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : reference(item))).join(',')}]`;
  const members = Object.keys(value)
    .sort()
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .map((key) => `${JSON.stringify(key)}:${reference((value as Record<string, unknown>)[key])}`);
  return `{${members.join(',')}}`;
};

describe('canonicalJson', () => {
  it('writes what the plain rule writes, for any JSON a client can send (hashes of stored events depend on it)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
      }),
      { numRuns: 2_000 },
    );
  });

  it('keeps integer-like keys in text order, where JavaScript enumerates them first in numeric order', () => {
    const value = { b: 1, '10': 'ten', '9': 'nine', a: { '2': true, '1x': null } };
    expect(canonicalJson(value)).toBe('{"10":"ten","9":"nine","a":{"1x":null,"2":true},"b":1}');
    expect(canonicalJson([{ z: 1, '0': 0 }])).toBe('[{"0":0,"z":1}]');
  });

  it('keeps a member named __proto__ that parsed JSON holds as its own', () => {
    const parsed = JSON.parse('{"b":2,"__proto__":{"x":1},"a":1}') as unknown;
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"x":1},"a":1,"b":2}');
  });

  it('writes dates as their ISO text, drops undefined members and writes functions as null', () => {
    const at = new Date('2026-01-10T00:00:00.000Z');
    expect(canonicalJson({ at, gone: undefined, call: () => 1, list: [undefined, at] })).toBe('{"at":"2026-01-10T00:00:00.000Z","call":null,"list":[null,"2026-01-10T00:00:00.000Z"]}');
    expect(canonicalJson(undefined)).toBe('null');
  });
});
