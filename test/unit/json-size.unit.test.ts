import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertJsonFieldSizes, JSON_FIELD_LIMITS, jsonBytes } from '../../domain/shared/json-size.js';

const encodedBytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value) ?? '').length;

describe('jsonBytes', () => {
  it('counts the UTF-8 bytes TextEncoder writes of the JSON text, for any JSON and any text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' })), (value) => {
        expect(jsonBytes(value)).toBe(encodedBytes(value));
      }),
      { numRuns: 2_000 },
    );
  });

  it('counts emoji as four bytes, CJK as three and a lone surrogate as its replacement (JSON.stringify escapes it)', () => {
    expect(jsonBytes('😀')).toBe(6);
    expect(jsonBytes('漢字')).toBe(8);
    expect(jsonBytes('\ud800x')).toBe(encodedBytes('\ud800x'));
  });
});

describe('assertJsonFieldSizes', () => {
  it('refuses a field over its limit in bytes, not characters, naming the field', () => {
    const data = { text: '字'.repeat(Math.floor(JSON_FIELD_LIMITS.metadata / 3)) };
    expect(() => assertJsonFieldSizes({ data })).not.toThrow();
    expect(() => assertJsonFieldSizes({ metadata: data })).toThrow(/too large/);
    try {
      assertJsonFieldSizes({ metadata: data });
    } catch (error) {
      expect((error as { details: string[] }).details).toEqual([`metadata: ${jsonBytes(data)} bytes of JSON; at most ${JSON_FIELD_LIMITS.metadata}`]);
    }
  });
});
