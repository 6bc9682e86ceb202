import { describe, expect, it } from 'vitest';
import { matchesIfNoneMatch, parseRangeHeader } from '../../interfaces/http/conditional-requests.js';

describe('Range header', () => {
  it.each([
    ['bytes=0-99', { start: 0, end: 99 }],
    ['bytes=100-', { start: 100 }],
    ['bytes=-500', { suffix: 500 }],
    [' bytes=5-5 ', { start: 5, end: 5 }],
  ])('reads %j as one range', (header, expected) => {
    expect(parseRangeHeader(header)).toEqual(expected);
  });

  it.each([undefined, '', 'bytes=', 'bytes=-', 'bytes=9-3', 'bytes=0-1,4-5', 'items=0-1', 'bytes=a-b', 'bytes=99999999999999999999-'])(
    'answers %j with the whole file',
    (header) => {
      expect(parseRangeHeader(header)).toBeNull();
    },
  );
});

describe('If-None-Match', () => {
  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['*', true],
    ['"abcd"', false],
    ['abc', false],
  ])('%j matches "abc": %s', (header, expected) => {
    expect(matchesIfNoneMatch(header, '"abc"')).toBe(expected);
  });
});
