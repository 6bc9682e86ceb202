import { describe, expect, it } from 'vitest';
import { routeLabel, UNMATCHED_ROUTE } from '../../interfaces/rest/matched-route.js';

describe('routeLabel', () => {
  it('joins the router mount path and the route pattern, never the raw path', () => {
    expect(routeLabel('/api', '/v2/results/:requestId')).toBe('/api/v2/results/:requestId');
    expect(routeLabel('', '/img/:file')).toBe('/img/:file');
  });

  it('puts every request no route matched in one series', () => {
    expect(routeLabel('/api', undefined)).toBe(UNMATCHED_ROUTE);
    expect(routeLabel('', /regex/)).toBe(UNMATCHED_ROUTE);
  });
});
