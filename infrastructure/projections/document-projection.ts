import type { EntityName } from '@mikro-orm/core';
import type { DomainEvent, RecordedEvent } from '../../domain/shared/events.js';

/**
 * Read models as documents, in the manner of emmett's pongo projections: a projection names, for
 * each event, the rows (documents) it changes, and a pure `evolve(row | null, event)` gives their
 * next version (null: the row goes, or stays absent). Loading and writing rows is the runner's
 * business, so projections know nothing of the ORM, the same folds serve live runners, rebuilds and
 * projection specs, and a batch costs one read and one write per table instead of one per event.
 *
 * A projection is one or more folds, one per kind of row it keeps, run in order for each event; a
 * later fold sees what earlier ones changed. A fold may read one row besides its own (`related`):
 * the account whose uploads a stored file counts in, the result whose file a deletion takes away.
 */

/** A row by its primary key, or every row whose columns equal these values (a fan-out to rows the event does not name). */
export type DocumentSelector<Row> = string | { readonly where: Partial<Row> };

export interface DocumentFold<E extends DomainEvent, Row extends object, Related extends object = never> {
  readonly entity: EntityName<Row>;
  /** The one other row this fold's decisions depend on, if any; it is read as the earlier folds left it. */
  readonly related?: { readonly entity: EntityName<Related>; id(event: RecordedEvent<E>): string | null };
  /** Rows of `entity` the event changes; none for events this fold has nothing to do with. */
  documents(event: RecordedEvent<E>, related: Related | null): readonly DocumentSelector<Row>[];
  /**
   * Whether the event makes its rows anew from itself alone (`evolve` ignores the row it is given):
   * a batch whose first mention of a row is such an event does not read the row. Every cache hit
   * starts a result of its own, so a busy log's batches would otherwise read rows that never exist.
   */
  makesAnew?(event: RecordedEvent<E>): boolean;
  /** Returns `row` itself when nothing changes, so unchanged rows are not written. */
  evolve(row: Row | null, event: RecordedEvent<E>, related: Related | null): Row | null;
}

export interface DocumentProjection<E extends DomainEvent> {
  /** Also the name of its checkpoint. */
  readonly name: string;
  /** Built from the exhaustive list of the event types the projection folds. */
  readonly canHandle: (event: RecordedEvent) => event is RecordedEvent<E>;
  readonly folds: readonly DocumentFold<E, object, object>[];
}

/**
 * Erases a fold's row types so folds of different tables sit in one list; `fold` checks each
 * definition against its own row types first.
 */
export const fold = <E extends DomainEvent, Row extends object, Related extends object = never>(
  definition: DocumentFold<E, Row, Related>,
): DocumentFold<E, object, object> => definition as DocumentFold<E, object, object>;

/** Where a batch's rows come from: the read-model tables, or nothing at all for a projection spec. */
export interface DocumentSource {
  /** The stored rows of `entity` with these keys, by key; keys without a row are left out. */
  load(entity: EntityName<object>, ids: readonly string[]): Promise<ReadonlyMap<string, object>>;
  /** The stored rows of `entity` whose columns equal those of any of `wheres`, by key. */
  find(entity: EntityName<object>, wheres: readonly object[]): Promise<ReadonlyMap<string, object>>;
}

export interface TableChanges {
  readonly entity: EntityName<object>;
  /** New versions of rows, by key. */
  readonly upserts: ReadonlyMap<string, object>;
  /** Keys of stored rows to delete. */
  readonly deletes: readonly string[];
}

interface Table {
  /** Rows as they stand in this batch, by key; null for a key known to have no row. */
  readonly current: Map<string, object | null>;
  /** Rows as stored before the batch, for the keys read so far. */
  readonly stored: Map<string, object | null>;
  readonly changed: Set<string>;
  /** Keys of the current rows by their values of some columns, for the fan-outs on those columns. */
  readonly indexes: Map<string, Map<string, Set<string>>>;
}

/** An index's name is its columns, sorted, joined by commas. */
const columnsOf = (where: object) => Object.keys(where).sort().join(',');
const valuesOf = (row: object, columns: string) => JSON.stringify(columns.split(',').map((column) => (row as Record<string, unknown>)[column] ?? null));

/** Whether `projection` may change anything for `event`: an event that names no row, nor one to read, changes none. */
export const concerns = <E extends DomainEvent>(projection: DocumentProjection<E>, event: RecordedEvent): boolean =>
  projection.canHandle(event) && projection.folds.some((each) => (each.related?.id(event) ?? null) !== null || each.documents(event, null).length > 0);

/**
 * Folds a batch of events into the rows they change. Rows are read once per table for the whole
 * batch where the events name them, fan-outs likewise (twice where a fold names rows by a related
 * one, e.g. a deletion's account by its stored file); only what no pass foresaw (a fan-out from a
 * row the batch itself changes) is read on its own.
 */
export const foldBatch = async <E extends DomainEvent>(projection: DocumentProjection<E>, events: readonly RecordedEvent[], source: DocumentSource): Promise<TableChanges[]> => {
  const tables = new Map<EntityName<object>, Table>();
  const table = (entity: EntityName<object>): Table => {
    let found = tables.get(entity);
    if (!found) {
      found = { current: new Map(), stored: new Map(), changed: new Set(), indexes: new Map() };
      tables.set(entity, found);
    }
    return found;
  };

  const setCurrent = (target: Table, id: string, row: object | null) => {
    const previous = target.current.get(id) ?? null;
    for (const [columns, index] of target.indexes) {
      if (previous !== null) index.get(valuesOf(previous, columns))?.delete(id);
      if (row !== null) {
        const values = valuesOf(row, columns);
        index.set(values, (index.get(values) ?? new Set<string>()).add(id));
      }
    }
    target.current.set(id, row);
  };

  const remember = (target: Table, id: string, row: object | null) => {
    setCurrent(target, id, row);
    target.stored.set(id, row);
  };

  const indexOn = (target: Table, columns: string) => {
    let index = target.indexes.get(columns);
    if (!index) {
      index = new Map<string, Set<string>>();
      for (const [id, row] of target.current) {
        if (row === null) continue;
        const values = valuesOf(row, columns);
        index.set(values, (index.get(values) ?? new Set<string>()).add(id));
      }
      target.indexes.set(columns, index);
    }
    return index;
  };

  const loadMissing = async (entity: EntityName<object>, ids: Iterable<string>) => {
    const target = table(entity);
    const missing = [...new Set(ids)].filter((id) => !target.current.has(id));
    if (missing.length === 0) return;
    const loaded = await source.load(entity, missing);
    for (const id of missing) remember(target, id, loaded.get(id) ?? null);
  };

  const read = async (entity: EntityName<object>, id: string): Promise<object | null> => {
    await loadMissing(entity, [id]);
    return table(entity).current.get(id) ?? null;
  };

  /** Fan-outs whose stored rows are all in memory already, by table: read together before the fold. */
  const prefetched = new Map<EntityName<object>, Set<string>>();
  const whereKey = (where: object) => JSON.stringify(where);

  const prefetch = async (entity: EntityName<object>, wheres: readonly object[]) => {
    const target = table(entity);
    for (const [id, row] of await source.find(entity, wheres)) if (!target.current.has(id)) remember(target, id, row);
    const keys = prefetched.get(entity) ?? new Set<string>();
    for (const where of wheres) keys.add(whereKey(where));
    prefetched.set(entity, keys);
  };

  /**
   * Rows matching `where` as this batch has them. Every stored row that matches is in memory (read
   * by the fan-out's query, before the fold or now), and so is every row the batch changed, so the
   * answer is the rows in memory that match now.
   */
  const resolve = async (entity: EntityName<object>, where: object): Promise<string[]> => {
    const target = table(entity);
    if (!prefetched.get(entity)?.has(whereKey(where))) {
      for (const [id, row] of await source.find(entity, [where])) if (!target.current.has(id)) remember(target, id, row);
    }
    const columns = columnsOf(where);
    return [...(indexOn(target, columns).get(valuesOf(where, columns)) ?? [])];
  };

  const handled = events.filter(projection.canHandle);

  // Preload: the rows every event names, one query per table; a second pass for rows named by related rows.
  for (let pass = 0; pass < 2; pass++) {
    const wanted = new Map<EntityName<object>, Set<string>>();
    /** Rows made anew before anything in the batch reads them: whatever is stored does not matter. */
    const anew = new Map<EntityName<object>, Set<string>>();
    const add = (to: Map<EntityName<object>, Set<string>>, entity: EntityName<object>, id: string) => {
      const ids = to.get(entity) ?? new Set<string>();
      ids.add(id);
      to.set(entity, ids);
    };
    const want = (entity: EntityName<object>, id: string) => {
      if (!anew.get(entity)?.has(id)) add(wanted, entity, id);
    };
    const fanOuts = new Map<EntityName<object>, Map<string, object>>();
    let unresolved = false;
    for (const event of handled) {
      for (const each of projection.folds) {
        let related: object | null = null;
        if (each.related) {
          const relatedId = each.related.id(event);
          if (relatedId !== null) {
            const known = table(each.related.entity).current;
            if (!known.has(relatedId)) {
              want(each.related.entity, relatedId);
              unresolved = true;
              continue;
            }
            related = known.get(relatedId) ?? null;
          }
        }
        for (const selector of each.documents(event, related)) {
          if (typeof selector === 'string' && each.makesAnew?.(event) && !wanted.get(each.entity)?.has(selector)) add(anew, each.entity, selector);
          else if (typeof selector === 'string') want(each.entity, selector);
          else if (!prefetched.get(each.entity)?.has(whereKey(selector.where))) {
            const wheres = fanOuts.get(each.entity) ?? new Map<string, object>();
            wheres.set(whereKey(selector.where), selector.where);
            fanOuts.set(each.entity, wheres);
          }
        }
      }
    }
    // Known to be replaced, not known to be absent: `stored` stays unknown, so a deletion still reaches the table.
    for (const [entity, ids] of anew) for (const id of ids) if (!table(entity).current.has(id)) setCurrent(table(entity), id, null);
    for (const [entity, ids] of wanted) await loadMissing(entity, ids);
    for (const [entity, wheres] of fanOuts) await prefetch(entity, [...wheres.values()]);
    if (!unresolved) break;
  }

  for (const event of handled) {
    for (const each of projection.folds) {
      const relatedId = each.related?.id(event) ?? null;
      const related = each.related && relatedId !== null ? await read(each.related.entity, relatedId) : null;
      const target = table(each.entity);
      for (const selector of each.documents(event, related)) {
        const ids = typeof selector === 'string' ? [selector] : await resolve(each.entity, selector.where);
        for (const id of ids) {
          const row = await read(each.entity, id);
          const next = each.evolve(row, event, related);
          if (next === row) continue;
          setCurrent(target, id, next);
          target.changed.add(id);
        }
      }
    }
  }

  return [...tables].flatMap(([entity, target]) => {
    const upserts = new Map<string, object>();
    const deletes: string[] = [];
    for (const id of target.changed) {
      const row = target.current.get(id) ?? null;
      if (row !== null) upserts.set(id, row);
      else if (!target.stored.has(id) || target.stored.get(id) !== null) deletes.push(id);
    }
    return upserts.size > 0 || deletes.length > 0 ? [{ entity, upserts, deletes }] : [];
  });
};
