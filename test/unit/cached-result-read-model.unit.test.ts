import { describe, expect, it } from 'vitest';
import type { CachedFile, ResultReadModel } from '../../application/ports/read-models.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import { cachedResultReadModel } from '../../infrastructure/read-models/cached-read-models.js';
import type { CommitListener } from '../../infrastructure/projections/projection-set.js';

const file = (requestId: string): CachedFile => ({ requestId, dataFrom: requestId, storageKey: `org-a/${requestId}/card.jpg`, contentType: 'image/jpeg', bytes: 10, width: 1, height: 1 });

const committed = (type: string) => ({ type, streamName: 'render-x', data: {}, metadata: {}, revision: 0, position: 1 }) as unknown as RecordedEvent;

/** A read model answering from `rows`, counting lookups; a feed the test commits batches to. */
const setup = () => {
  const rows = new Map<string, CachedFile>();
  let lookups = 0;
  const inner = {
    findCached: async (orgId: string, cacheKey: string) => {
      lookups++;
      return rows.get(`${orgId}/${cacheKey}`) ?? null;
    },
  } as ResultReadModel;
  const listeners: CommitListener[] = [];
  const results = cachedResultReadModel(inner, { onCommitted: (_projection, listener) => listeners.push(listener) });
  const commit = (...types: string[]) => listeners.forEach((listener) => listener(types.map(committed), null));
  return { rows, results, commit, lookups: () => lookups };
};

describe('cached cache lookups', () => {
  it('asks the read model once per key and organization', async () => {
    const { rows, results, lookups } = setup();
    rows.set('org-a/key', file('source'));

    expect(await results.findCached('org-a', 'key')).toEqual(file('source'));
    expect(await results.findCached('org-a', 'key')).toEqual(file('source'));
    expect(await results.findCached('org-b', 'key')).toBeNull();
    expect(lookups()).toBe(2);
  });

  it('keeps its entries through renders and forgets them all when a result is deleted', async () => {
    const { rows, results, commit, lookups } = setup();
    rows.set('org-a/key', file('source'));
    await results.findCached('org-a', 'key');

    commit('RenderRequested', 'RenderCompleted');
    await results.findCached('org-a', 'key');
    expect(lookups()).toBe(1);

    rows.delete('org-a/key');
    commit('RenderCompleted', 'ResultDeleted');
    expect(await results.findCached('org-a', 'key')).toBeNull();
    expect(lookups()).toBe(2);
  });
});
