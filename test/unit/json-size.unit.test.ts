import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertJsonFieldSizes, JSON_FIELD_LIMITS, JSON_SHAPE_LIMITS, jsonBytes } from '../../domain/shared/json-size.js';
import { MAX_MERGED_CHARACTERS, mustacheMerger } from '../../infrastructure/templates/mustache-merger.js';

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

  const detailsOf = (fields: Parameters<typeof assertJsonFieldSizes>[0]) => {
    try {
      assertJsonFieldSizes(fields);
      return [];
    } catch (error) {
      return (error as { details: string[] }).details;
    }
  };

  it('takes lists up to their bound and refuses a longer one, naming where it is', () => {
    const items = Array.from({ length: JSON_SHAPE_LIMITS.arrayLength }, (_, index) => index);
    expect(detailsOf({ data: { items } })).toEqual([]);
    expect(detailsOf({ data: { order: { items: [...items, 0] } } })).toEqual([`data.order.items: a list of ${JSON_SHAPE_LIMITS.arrayLength + 1} items; at most ${JSON_SHAPE_LIMITS.arrayLength}`]);
  });

  it('takes nesting up to its bound and refuses one level more', () => {
    const nested = (levels: number): unknown => (levels === 0 ? 'leaf' : { inner: [nested(levels - 1)] });
    expect(detailsOf({ data: { root: nested(8) } })).toEqual([]);
    expect(detailsOf({ data: { root: nested(9) } })[0]).toMatch(new RegExp(`^data\\.root(\\.inner\\[0\\])+.*nested more than ${JSON_SHAPE_LIMITS.depth} levels deep$`));
  });
});

describe('the merge of lists and sections', () => {
  it('repeats a section per item, shows the inverted section for an empty list, and refuses a merged document over its bound', () => {
    const html = '<ul>{{#items}}<li>{{name}}</li>{{/items}}{{^items}}<li>none</li>{{/items}}</ul>';
    expect(mustacheMerger.merge(html, { items: [{ name: 'a' }, { name: '<b>' }] })).toBe('<ul><li>a</li><li>&lt;b&gt;</li></ul>');
    expect(mustacheMerger.merge(html, { items: [] })).toBe('<ul><li>none</li></ul>');
    const big = { items: Array.from({ length: 10_000 }, () => ({ name: 'x'.repeat(50) })) };
    const block = `{{#items}}<p>${'-'.repeat(Math.ceil(MAX_MERGED_CHARACTERS / 10_000))}{{name}}</p>{{/items}}`;
    expect(() => mustacheMerger.merge(block, big)).toThrow(/characters long; at most/);
  });
});
