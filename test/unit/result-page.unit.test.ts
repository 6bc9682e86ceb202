import { describe, expect, it } from 'vitest';
import { toPage } from '../../application/results/result-dto.js';

const unsorted = { empty: true, unsorted: true, sorted: false };

describe('toPage (Spring page wrapper)', () => {
  it('fills every field of the wrapper for a middle page', () => {
    expect(toPage(['c', 'd'], 1, 2, 5)).toEqual({
      content: ['c', 'd'],
      pageable: { sort: unsorted, offset: 2, pageNumber: 1, pageSize: 2, unpaged: false, paged: true },
      totalPages: 3,
      totalElements: 5,
      last: false,
      size: 2,
      number: 1,
      sort: unsorted,
      numberOfElements: 2,
      first: false,
      empty: false,
    });
  });

  it.each([
    // [content length, page, size, total] -> totalPages, first, last, empty
    [2, 0, 2, 5, 3, true, false, false],
    [1, 2, 2, 5, 3, false, true, false],
    [2, 1, 2, 4, 2, false, true, false],
    [3, 0, 20, 3, 1, true, true, false],
    [0, 0, 20, 0, 0, true, true, true],
    [0, 7, 2, 5, 3, false, true, true],
  ])('%i items of page %i size %i of %i: %i pages, first %s, last %s, empty %s', (count, page, size, total, totalPages, first, last, empty) => {
    const wrapper = toPage(Array.from({ length: count }, (_, index) => index), page, size, total);
    expect(wrapper).toMatchObject({ totalPages, first, last, empty, numberOfElements: count, number: page, size, totalElements: total });
    expect(wrapper.pageable.offset).toBe(page * size);
  });
});
