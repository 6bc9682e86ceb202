import type { EntityName } from '@mikro-orm/core';
import { describe, expect, it } from 'vitest';
import type { DomainEvent, RecordedEvent } from '../../domain/shared/events.js';
import { fold, type DocumentProjection, type DocumentSource } from '../../infrastructure/projections/document-projection.js';
import { changesOf, createMemoryTables, foldInto } from '../../infrastructure/projections/memory-tables.js';

/** Any entity: the rows are told apart by table. */
const TABLE: EntityName<object> = class Row {};

type NoteEvent = { type: 'Set'; data: { id: string; v: number } } | { type: 'Deleted'; data: { id: string } };

const notes: DocumentProjection<NoteEvent> = {
  name: 'notes',
  canHandle: (event): event is RecordedEvent<NoteEvent> => event.type === 'Set' || event.type === 'Deleted',
  folds: [
    fold<NoteEvent, { id: string; v: number }>({
      entity: TABLE as EntityName<{ id: string; v: number }>,
      documents: (event) => [event.data.id],
      evolve: (row, event) => (event.type === 'Deleted' ? null : row?.v === event.data.v ? row : { id: event.data.id, v: event.data.v }),
    }),
  ],
};

let position = 0;
const recorded = (event: NoteEvent): RecordedEvent => ({ ...(event as DomainEvent), streamName: `note-${event.data.id}`, revision: 0, position: position++, metadata: {} as RecordedEvent['metadata'] });
const set = (id: string, v: number) => recorded({ type: 'Set', data: { id, v } });
const deleted = (id: string) => recorded({ type: 'Deleted', data: { id } });

/** A table of rows by key that counts the keys it is asked for. */
const countingSource = (rows: Record<string, object>) => {
  const asked: string[] = [];
  const source: DocumentSource = {
    load: async (_entity, ids) => {
      asked.push(...ids);
      return new Map(ids.flatMap((id) => (rows[id] ? [[id, rows[id]] as const] : [])));
    },
    find: async () => new Map(),
  };
  return { source, asked };
};

describe('memory tables of a live runner', () => {
  it('fold the next batch from the rows the last one read and wrote, an absent row included, and read only the rest', async () => {
    const table = countingSource({ a: { id: 'a', v: 1 }, b: { id: 'b', v: 2 } });
    const memory = createMemoryTables(table.source, { complete: false });
    await foldInto(memory, notes, [set('a', 10), deleted('b'), set('gone', 3), deleted('gone')]);
    // a rewritten and b deleted; "gone" was read as absent and went again within the batch: nothing to delete.
    expect(changesOf(memory.commit(256))).toEqual([{ entity: TABLE, upserts: new Map([['a', { id: 'a', v: 10 }]]), deletes: ['b'] }]);
    expect(table.asked).toEqual(['a', 'b', 'gone']);

    await foldInto(memory, notes, [set('a', 11), set('b', 4), set('gone', 5), set('c', 6)]);
    expect(changesOf(memory.commit(256))).toEqual([
      { entity: TABLE, upserts: new Map(['a', 'b', 'gone', 'c'].map((id, index) => [id, { id, v: [11, 4, 5, 6][index] }])), deletes: [] },
    ]);
    // Only c was not known.
    expect(table.asked).toEqual(['a', 'b', 'gone', 'c']);
  });

  it('write nothing for a batch that changes nothing, and delete a held row that goes', async () => {
    const table = countingSource({ a: { id: 'a', v: 1 } });
    const memory = createMemoryTables(table.source, { complete: false });
    await foldInto(memory, notes, [set('a', 1)]);
    expect(changesOf(memory.commit(256))).toEqual([]);
    await foldInto(memory, notes, [deleted('a')]);
    expect(changesOf(memory.commit(256))).toEqual([{ entity: TABLE, upserts: new Map(), deletes: ['a'] }]);
    expect(table.asked).toEqual(['a']);
  });

  it('hold at most two spans of rows: rows no batch used since the span before last are read again', async () => {
    const table = countingSource({});
    const memory = createMemoryTables(table.source, { complete: false });
    const batch = async (...ids: string[]) => {
      await foldInto(memory, notes, ids.map((id) => set(id, 1 + position)));
      memory.commit(1);
    };
    await batch('a', 'b');
    // a and b became the older span; c and a (used again) fill the recent one past the bound, so the
    // span before, now only b, is forgotten.
    await batch('c', 'a');
    await batch('d');
    table.asked.length = 0;
    await batch('a', 'b', 'c', 'd');
    expect(table.asked).toEqual(['b']);
  });
});
