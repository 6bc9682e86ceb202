import type { EntityName } from '@mikro-orm/core';
import type { DomainEvent, RecordedEvent } from '../../domain/shared/events.js';
import { createMemoryTables, type MemoryTables, type TableDrain } from './memory-tables.js';

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

/** Whether `projection` may change anything for `event`: an event that names no row, nor one to read, changes none. */
export const concerns = <E extends DomainEvent>(projection: DocumentProjection<E>, event: RecordedEvent): boolean =>
  projection.canHandle(event) && projection.folds.some((each) => (each.related?.id(event) ?? null) !== null || each.documents(event, null).length > 0);

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

/** Folds a batch of events into the rows they change, read from `source` (memory-tables.ts, with the fold the rebuild runs). */
export const foldBatch = async <E extends DomainEvent>(projection: DocumentProjection<E>, events: readonly RecordedEvent[], source: DocumentSource): Promise<TableChanges[]> => {
  const memory = createMemoryTables(source, { complete: false });
  await foldInto(memory, projection, events);
  return changesOf(memory.drain());
};
