import type { EntityName } from '@mikro-orm/core';
import type { DomainEvent, RecordedEvent } from '../../domain/shared/events.js';
import type { DocumentFold, DocumentProjection, DocumentSource, TableChanges } from './document-projection.js';
import { createValueIndex, type ValueIndex } from './value-index.js';

/**
 * Read-model rows held in memory while events are folded into them, by a document projection's
 * folds: the rows of one live batch (foldBatch), or the read models a rebuild folds from event to
 * event, so that folding the log reads nothing back from the database and rows are written in bulk,
 * once each for the most part.
 *
 * A rebuild is the only writer of its fresh tables, so it holds what it knows `complete`: a key
 * neither held nor written has no row. Rows no event changed for a while (a finished render's
 * result) are handed over to be written (`evict`) and forgotten, so memory holds the rows of recent
 * events, not the whole read model; their keys are kept, and an event that changes a written row
 * reads it back first. A live batch knows only what it read: any other row is read when met.
 */

interface Fanout {
  readonly index: ValueIndex;
  /** Rows were written out before the index began: those it lacks are looked for in the table. */
  readonly partial: boolean;
}

/** Held for a key whose row went: a map lookup then tells "no row" from "not held" at once. */
const GONE: object = Object.freeze({});

interface Table {
  readonly entity: EntityName<object>;
  /** Rows changed or read since the last eviction, by key (GONE for a row that went). */
  young: Map<string, object>;
  /** Rows changed or read in the span before, and not since. */
  old: Map<string, object>;
  /** Keys held that were read back and not changed since: an eviction need not write them again. */
  readonly unchanged: Set<string>;
  /** Keys that have a row in the table (or may have: a row a live batch makes anew without reading it). */
  readonly written: Set<string>;
  /**
   * Keys by their rows' values of some columns, for the fan-outs on those columns (by the column
   * names, sorted and joined): rows held and rows written since the index began.
   */
  readonly fanouts: Map<string, Fanout>;
  /** The values of `fanouts`, kept apart because every change walks them. */
  readonly indexes: ValueIndex[];
}

/** Rows to write to one table. */
export interface TableDrain {
  readonly entity: EntityName<object>;
  /** Keys whose row in the table goes first: rewritten or deleted since they were written. */
  readonly replaced: readonly string[];
  /** The rows to write, by key. */
  readonly rows: ReadonlyMap<string, object>;
}

export const createMemoryTables = (stored: DocumentSource, { complete }: { readonly complete: boolean }) => {
  const tables = new Map<EntityName<object>, Table>();
  const table = (entity: EntityName<object>): Table => {
    let found = tables.get(entity);
    if (!found) {
      found = { entity, young: new Map(), old: new Map(), unchanged: new Set(), written: new Set(), fanouts: new Map(), indexes: [] };
      tables.set(entity, found);
    }
    return found;
  };

  /** `previous`: the row `id` had here, if any; a row is put only once `peek` found it (young), or found it had none. */
  const put = (target: Table, id: string, row: object | null, previous: object | null) => {
    for (const index of target.indexes) index.move(id, previous, row);
    target.young.set(id, row ?? GONE);
  };

  /**
   * The row of this key: null if it has none, undefined if it must be read first (written out, or
   * not known to a live batch). A row found in the old span is moved to the young one: it is in use again.
   */
  const peek = (target: Table, id: string): object | null | undefined => {
    let row = target.young.get(id);
    if (row === undefined) {
      row = target.old.get(id);
      if (row === undefined) return complete && !target.written.has(id) ? null : undefined;
      target.old.delete(id);
      target.young.set(id, row);
    }
    return row === GONE ? null : row;
  };

  /** Rows as the table has them, held unchanged. */
  const hold = (target: Table, id: string, row: object | null) => {
    put(target, id, row, null);
    target.unchanged.add(id);
    if (row !== null) target.written.add(id);
  };

  const readBack = async (target: Table, id: string): Promise<object | null> => {
    const row = (await stored.load(target.entity, [id])).get(id) ?? null;
    hold(target, id, row);
    return row;
  };

  const fanoutOn = (target: Table, where: object): Fanout => {
    const columns = Object.keys(where).sort();
    const name = columns.join(',');
    let fanout = target.fanouts.get(name);
    if (!fanout) {
      const index = createValueIndex(columns);
      for (const generation of [target.old, target.young]) for (const [id, row] of generation) if (row !== GONE) index.add(row, id);
      fanout = { index, partial: !complete || target.written.size > 0 };
      target.fanouts.set(name, fanout);
      target.indexes.push(index);
    }
    return fanout;
  };

  /** Keys of the rows whose columns equal `where`'s, written ones included. */
  const matching = async (target: Table, where: object): Promise<string[]> => {
    const { index, partial } = fanoutOn(target, where);
    const keys = new Set(index.keys(where));
    if (partial) {
      for (const [id, row] of await stored.find(target.entity, [where])) {
        if (peek(target, id) !== undefined) continue;
        hold(target, id, row);
        keys.add(id);
      }
    }
    return [...keys];
  };

  /** The fold `each` applied to the row of `id`, found by `peek` (or read back). */
  const change = (each: DocumentFold<DomainEvent, object, object>, target: Table, id: string, row: object | null, event: RecordedEvent, related: object | null) => {
    const next = each.evolve(row, event, related);
    if (next === row) return;
    put(target, id, next, row);
    if (target.unchanged.size > 0) target.unchanged.delete(id);
  };

  /**
   * What to write of `rows`; the keys they leave in `written`. Unless `keep`, the rows are forgotten
   * (handed over to be written out); kept, they stay held as the table will have them.
   */
  const handOver = (target: Table, rows: Map<string, object>, keep: boolean): TableDrain | null => {
    const { entity, unchanged, written } = target;
    const replaced: string[] = [];
    const kept = new Map<string, object>();
    for (const [id, row] of rows) {
      if (keep ? unchanged.has(id) : unchanged.delete(id)) continue;
      if (keep) unchanged.add(id);
      if (written.has(id)) replaced.push(id);
      if (row === GONE) written.delete(id);
      else {
        kept.set(id, row);
        written.add(id);
      }
    }
    return replaced.length > 0 || kept.size > 0 ? { entity, replaced, rows: kept } : null;
  };

  /** Rows a live runner no longer holds: it will read them again if an event changes them. */
  const forget = (target: Table, rows: Map<string, object>) => {
    for (const [id, row] of rows) {
      if (row !== GONE) for (const index of target.indexes) index.move(id, row, null);
      target.written.delete(id);
      target.unchanged.delete(id);
    }
  };

  return {
    /** The row of this key as held: null for none, undefined when not known. */
    peek: (entity: EntityName<object>, id: string): object | null | undefined => peek(table(entity), id),

    /** Reads the rows of these keys not known yet, in one read. */
    async load(entity: EntityName<object>, ids: readonly string[]): Promise<void> {
      const target = table(entity);
      const missing = ids.filter((id) => peek(target, id) === undefined);
      if (missing.length === 0) return;
      const loaded = await stored.load(entity, missing);
      for (const id of missing) hold(target, id, loaded.get(id) ?? null);
    },

    /**
     * A row an event makes anew from itself alone, not read first. What the table has stays unknown,
     * so the row is written (or, if it goes, deleted) only if a fold changes it.
     */
    startAnew(entity: EntityName<object>, id: string): void {
      const target = table(entity);
      if (peek(target, id) !== undefined) return;
      put(target, id, null, null);
      target.unchanged.add(id);
      target.written.add(id);
    },

    /**
     * Folds events with a document projection's folds: event by event, fold by fold, a fold's related
     * row and fan-out read as the earlier folds left them. A row not at hand is read on its own; the
     * awaits are only on that path: an await per row would cost more than the fold itself.
     */
    async fold<E extends DomainEvent>(projection: DocumentProjection<E>, events: readonly RecordedEvent[]): Promise<void> {
      const folds = (projection as DocumentProjection<DomainEvent>).folds.map((each) => ({
        each,
        target: table(each.entity),
        relation: each.related ? { id: each.related.id, target: table(each.related.entity) } : null,
      }));
      for (const event of events) {
        if (!projection.canHandle(event)) continue;
        for (const { each, target, relation } of folds) {
          let related: object | null | undefined = null;
          const relatedId = relation && relation.id(event);
          if (relation && relatedId !== null) {
            related = peek(relation.target, relatedId);
            if (related === undefined) related = await readBack(relation.target, relatedId);
          }
          for (const selector of each.documents(event, related)) {
            if (typeof selector === 'string') {
              let row = peek(target, selector);
              if (row === undefined) row = await readBack(target, selector);
              change(each, target, selector, row, event, related);
            } else {
              for (const id of await matching(target, selector.where)) {
                let row = peek(target, id);
                if (row === undefined) row = await readBack(target, id);
                change(each, target, id, row, event, related);
              }
            }
          }
        }
      }
    },

    /** Hands over the rows no event changed since the last eviction; the others wait for the next. */
    evict(): TableDrain[] {
      return [...tables.values()].flatMap((target) => {
        const drain = handOver(target, target.old, false);
        target.old = target.young;
        target.young = new Map();
        return drain ? [drain] : [];
      });
    },

    /** Hands over every row held. */
    drain(): TableDrain[] {
      return [...tables.values()].flatMap((target) => {
        const drains = [handOver(target, target.old, false), handOver(target, target.young, false)];
        target.old = new Map();
        target.young = new Map();
        return drains.filter((drain) => drain !== null);
      });
    },

    /**
     * For a live runner's batch: hands over the rows it changed and keeps every row held as the table
     * will have it once they are written, for the next batch to fold from. A table whose recent span
     * holds more than `keep` rows starts a new one and forgets the span before.
     */
    commit(keep: number): TableDrain[] {
      return [...tables.values()].flatMap((target) => {
        // Only the recent span can hold changes: a row an event reads or changes is moved into it first.
        const drain = handOver(target, target.young, true);
        if (target.young.size > keep) {
          forget(target, target.old);
          target.old = target.young;
          target.young = new Map();
        }
        return drain ? [drain] : [];
      });
    },
  };
};

export type MemoryTables = ReturnType<typeof createMemoryTables>;

/**
 * Folds a batch of events into the rows `memory` holds. The rows the events name and memory does not
 * hold are read first, one read per table (twice where a fold names rows by a related one, e.g. a
 * deletion's account by its stored file); rows an event makes anew are not read; only what no pass
 * foresaw (a fan-out) is read when the fold meets it.
 */
export const foldInto = async <E extends DomainEvent>(memory: MemoryTables, projection: DocumentProjection<E>, events: readonly RecordedEvent[]): Promise<void> => {
  const handled = events.filter(projection.canHandle);
  for (let pass = 0; pass < 2; pass++) {
    const wanted = new Map<EntityName<object>, Set<string>>();
    const want = (entity: EntityName<object>, id: string) => wanted.set(entity, (wanted.get(entity) ?? new Set<string>()).add(id));
    let unresolved = false;
    for (const event of handled) {
      for (const each of projection.folds) {
        const relatedId = each.related?.id(event) ?? null;
        const related = each.related && relatedId !== null ? memory.peek(each.related.entity, relatedId) : null;
        if (related === undefined && each.related && relatedId !== null) {
          want(each.related.entity, relatedId);
          unresolved = true;
          continue;
        }
        for (const selector of each.documents(event, related ?? null)) {
          if (typeof selector !== 'string' || memory.peek(each.entity, selector) !== undefined) continue;
          // Made anew before anything in the batch reads it: what is stored does not matter.
          if (each.makesAnew?.(event) && !wanted.get(each.entity)?.has(selector)) memory.startAnew(each.entity, selector);
          else want(each.entity, selector);
        }
      }
    }
    for (const [entity, ids] of wanted) await memory.load(entity, [...ids]);
    if (!unresolved) break;
  }
  await memory.fold(projection, handled);
};

/** What memory tables hand over, as the statements of a live batch write it: upserts, and deletes of rows that went. */
export const changesOf = (drains: readonly TableDrain[]): TableChanges[] =>
  drains.map(({ entity, replaced, rows }) => ({ entity, upserts: rows, deletes: replaced.filter((id) => !rows.has(id)) }));

/** Folds a batch of events into the rows they change, read from `source`, with the fold the rebuild runs. */
export const foldBatch = async <E extends DomainEvent>(projection: DocumentProjection<E>, events: readonly RecordedEvent[], source: DocumentSource): Promise<TableChanges[]> => {
  const memory = createMemoryTables(source, { complete: false });
  await foldInto(memory, projection, events);
  return changesOf(memory.drain());
};
