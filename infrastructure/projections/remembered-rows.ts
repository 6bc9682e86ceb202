import type { EntityName } from '@mikro-orm/core';
import type { DocumentSource, TableChanges } from './document-projection.js';

/**
 * Read-model rows as one runner last read and wrote them, a bounded number per table, newest kept.
 * They are what the tables hold for as long as nobody else writes them, which the runner knows by
 * its checkpoint: every write to a projection's rows moves its checkpoint in the same statement or
 * transaction. So a runner whose batches land where it left the checkpoint folds the next batch from
 * these rows without reading them back: a render's result row is read at its completion, its
 * account's row at every charge and completion, and under load each read is a query of MikroORM's
 * (node CPU and a round trip) on the path of the answer that waits for the read models.
 *
 * A row held as null is known to be absent.
 */
export interface RememberedRows {
  /** A source that answers keys it holds from memory and notes what else it reads for `rememberBatch`. */
  readingThrough(source: DocumentSource): DocumentSource;
  /** After the batch read through `readingThrough` was written: its reads, then its writes, are what the tables hold. */
  rememberBatch(changes: readonly TableChanges[]): void;
  /** Someone else wrote, or it is unknown whether the batch was written: nothing held can be trusted. */
  forget(): void;
}

/** Enough for the renders in flight at once and their accounts; a result row can hold up to a few hundred KB of request data. */
const ROWS_PER_TABLE = 256;

export const createRememberedRows = (rowsPerTable = ROWS_PER_TABLE): RememberedRows => {
  let held = new Map<EntityName<object>, Map<string, object | null>>();
  /** Rows read from the tables by the batch in progress, remembered once it is written. */
  let read = new Map<EntityName<object>, Map<string, object | null>>();

  const rowsOf = (tables: Map<EntityName<object>, Map<string, object | null>>, entity: EntityName<object>) => {
    let rows = tables.get(entity);
    if (!rows) {
      rows = new Map();
      tables.set(entity, rows);
    }
    return rows;
  };

  const hold = (entity: EntityName<object>, id: string, row: object | null) => {
    const rows = rowsOf(held, entity);
    // Re-inserted so the map's order is the order of use, and the oldest is first to go.
    rows.delete(id);
    rows.set(id, row);
    if (rows.size > rowsPerTable) rows.delete(rows.keys().next().value as string);
  };

  return {
    readingThrough(source) {
      read = new Map();
      const note = (entity: EntityName<object>, id: string, row: object | null) => rowsOf(read, entity).set(id, row);
      return {
        async load(entity, ids) {
          const known = held.get(entity);
          const rows = new Map<string, object>();
          const missing: string[] = [];
          for (const id of ids) {
            const row = known?.get(id);
            if (row === undefined) missing.push(id);
            else if (row !== null) rows.set(id, row);
          }
          if (missing.length === 0) return rows;
          const loaded = await source.load(entity, missing);
          for (const id of missing) {
            const row = loaded.get(id) ?? null;
            note(entity, id, row);
            if (row !== null) rows.set(id, row);
          }
          return rows;
        },
        // A fan-out needs every matching row, which only the table knows; what it finds is remembered.
        async find(entity, wheres) {
          const found = await source.find(entity, wheres);
          for (const [id, row] of found) note(entity, id, row);
          return found;
        },
      };
    },
    rememberBatch(changes) {
      for (const [entity, rows] of read) for (const [id, row] of rows) hold(entity, id, row);
      for (const { entity, upserts, deletes } of changes) {
        for (const [id, row] of upserts) hold(entity, id, row);
        for (const id of deletes) hold(entity, id, null);
      }
      read = new Map();
    },
    forget() {
      held = new Map();
      read = new Map();
    },
  };
};
