import type { EntityName } from '@mikro-orm/core';
import { describe, expect, it } from 'vitest';
import type { DocumentSource } from '../../infrastructure/projections/document-projection.js';
import { createRememberedRows } from '../../infrastructure/projections/remembered-rows.js';

/** Any entity: the rows are told apart by table. */
const TABLE: EntityName<object> = class Row {};

/** A table of rows by key that counts the keys it is asked for. */
const countingSource = (rows: Record<string, object>) => {
  const asked: string[] = [];
  const source: DocumentSource = {
    load: async (_entity, ids) => {
      asked.push(...ids);
      return new Map(ids.flatMap((id) => (rows[id] ? [[id, rows[id]] as const] : [])));
    },
    find: async () => new Map(Object.entries(rows)),
  };
  return { source, asked };
};

describe('remembered rows', () => {
  it('answer what the last batch read and wrote, an absent row included, and read only the rest', async () => {
    const remembered = createRememberedRows();
    const table = countingSource({ a: { v: 1 }, b: { v: 2 } });
    const first = remembered.readingThrough(table.source);
    expect(await first.load(TABLE, ['a', 'b', 'gone'])).toEqual(new Map([['a', { v: 1 }], ['b', { v: 2 }]]));
    remembered.rememberBatch([{ entity: TABLE, upserts: new Map([['a', { v: 10 }]]), deletes: ['b'] }]);

    const second = remembered.readingThrough(table.source);
    // a as written, b deleted, "gone" known to be absent: none read again; c is.
    expect(await second.load(TABLE, ['a', 'b', 'gone', 'c'])).toEqual(new Map([['a', { v: 10 }]]));
    expect(table.asked).toEqual(['a', 'b', 'gone', 'c']);
  });

  it('remember nothing of a batch that was not written, and nothing at all once told to forget', async () => {
    const remembered = createRememberedRows();
    const table = countingSource({ a: { v: 1 } });
    await remembered.readingThrough(table.source).load(TABLE, ['a']);
    // The next batch begins without the first having been written: its reads are not trusted.
    await remembered.readingThrough(table.source).load(TABLE, ['a']);
    remembered.rememberBatch([]);
    remembered.forget();
    await remembered.readingThrough(table.source).load(TABLE, ['a']);
    expect(table.asked).toEqual(['a', 'a', 'a']);
  });

  it('hold at most so many rows per table, the least recently used going first', async () => {
    const remembered = createRememberedRows(2);
    const table = countingSource({});
    const write = (...ids: string[]) => {
      remembered.readingThrough(table.source);
      remembered.rememberBatch([{ entity: TABLE, upserts: new Map(ids.map((id) => [id, { id }])), deletes: [] }]);
    };
    write('a', 'b');
    // a used again (written), then c: b is the one to go.
    write('a');
    write('c');
    expect(await remembered.readingThrough(table.source).load(TABLE, ['a', 'b', 'c'])).toEqual(new Map([['a', { id: 'a' }], ['c', { id: 'c' }]]));
    expect(table.asked).toEqual(['b']);
  });
});
