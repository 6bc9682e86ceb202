import { describe, expect, it } from 'vitest';
import { createValueIndex } from '../../infrastructure/projections/value-index.js';

describe('value index (fan-outs over rows in memory)', () => {
  it('finds rows by several columns and follows them as they change or go', () => {
    const index = createValueIndex(['orgId', 'storageKey']);
    const a = { orgId: 'org-1', storageKey: 'k1' };
    const b = { orgId: 'org-1', storageKey: null };
    index.add(a, 'a');
    index.add(b, 'b');
    index.add({ orgId: 'org-2', storageKey: 'k1' }, 'c');
    expect(index.keys({ orgId: 'org-1', storageKey: 'k1' })).toEqual(['a']);

    const completed = { ...b, storageKey: 'k1' };
    index.move('b', b, completed);
    expect(index.keys({ orgId: 'org-1', storageKey: 'k1' }).sort()).toEqual(['a', 'b']);
    expect(index.keys({ orgId: 'org-1', storageKey: null })).toEqual([]);

    index.move('a', a, null);
    expect(index.keys({ orgId: 'org-1', storageKey: 'k1' })).toEqual(['b']);
    expect(index.keys({ orgId: 'org-3', storageKey: 'k1' })).toEqual([]);
  });

  it('matches values as their JSON does, as the rows are written', () => {
    const index = createValueIndex(['at', 'note']);
    index.add({ at: new Date('2026-01-01T00:00:00.000Z'), note: undefined }, 'row');
    expect(index.keys({ at: '2026-01-01T00:00:00.000Z', note: null })).toEqual(['row']);
    index.add({ at: 1, note: Number.NaN }, 'number');
    expect(index.keys({ at: '1', note: null })).toEqual([]);
    expect(index.keys({ at: 1, note: null })).toEqual(['number']);
  });

  it('holds a key once however often it is added', () => {
    const index = createValueIndex(['orgId']);
    const row = { orgId: 'org-1' };
    index.add(row, 'a');
    index.add(row, 'a');
    index.add({ orgId: 'org-1' }, 'b');
    index.add(row, 'b');
    expect(index.keys({ orgId: 'org-1' }).sort()).toEqual(['a', 'b']);
  });
});
