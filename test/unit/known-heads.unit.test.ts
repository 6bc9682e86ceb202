import { describe, expect, it } from 'vitest';
import { createKnownHeads } from '../../infrastructure/event-store/known-heads.js';

/** Where an append chains on without reading the stream's head, and when it must read. */
describe('known stream heads', () => {
  it('chains a new stream from nothing, and a stream from the hash of the revision it was seen ending at', () => {
    const heads = createKnownHeads();
    heads.saw('render-1', 3, 'h3');

    expect(heads.chainFrom('render-2', 'no-stream')).toEqual({ firstRevision: 0, previousHash: null });
    expect(heads.chainFrom('render-1', 3)).toEqual({ firstRevision: 4, previousHash: 'h3' });
  });

  it('knows nothing of a stream never seen, of another revision, or of an append at any revision', () => {
    const heads = createKnownHeads();
    heads.saw('render-1', 3, 'h3');

    expect(heads.chainFrom('render-2', 0)).toBeUndefined();
    expect(heads.chainFrom('render-1', 2)).toBeUndefined();
    expect(heads.chainFrom('render-1', 4)).toBeUndefined();
    expect(heads.chainFrom('render-1', 'any')).toBeUndefined();
  });

  it('keeps the later head when a read that began earlier answers after an append', () => {
    const heads = createKnownHeads();
    heads.saw('render-1', 5, 'h5');
    heads.saw('render-1', 4, 'h4');

    expect(heads.chainFrom('render-1', 5)).toEqual({ firstRevision: 6, previousHash: 'h5' });
    expect(heads.chainFrom('render-1', 4)).toBeUndefined();
  });

  it('forgets the streams least recently seen beyond its capacity', () => {
    const heads = createKnownHeads(2);
    heads.saw('a', 0, 'a0');
    heads.saw('b', 0, 'b0');
    heads.saw('a', 1, 'a1');
    heads.saw('c', 0, 'c0');

    expect(heads.chainFrom('b', 0)).toBeUndefined();
    expect(heads.chainFrom('a', 1)).toEqual({ firstRevision: 2, previousHash: 'a1' });
    expect(heads.chainFrom('c', 0)).toEqual({ firstRevision: 1, previousHash: 'c0' });
  });
});
