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

/** Whether `projection` may change anything for `event`: an event that names no row, nor one to read, changes none. */
export const concerns = <E extends DomainEvent>(projection: DocumentProjection<E>, event: RecordedEvent): boolean =>
  projection.canHandle(event) && projection.folds.some((each) => (each.related?.id(event) ?? null) !== null || each.documents(event, null).length > 0);
