/**
 * Keys of rows by their values of some columns, for a document projection's fan-outs (`{ where }`
 * selectors) over rows held in memory: one map per column, nested, keyed by the values themselves,
 * so that adding a row or finding rows builds no string (a row's strings keep their hash from one
 * version of the row to the next). Values match by their JSON, as the rows are written: a date and
 * its ISO string alike, null and undefined alike, and numbers JSON cannot hold as null.
 */

export interface ValueIndex {
  add(row: object, id: string): void;
  /** Moves `id` from the entry of `previous` to that of `row` (either may be null); nothing to do when those columns did not change. */
  move(id: string, previous: object | null, row: object | null): void;
  /** Keys of the rows whose columns equal `where`'s. */
  keys(where: object): string[];
}

/** Most values belong to one row: a set only for those that have several. */
type Entry = string | Set<string>;
type Level = Map<unknown, unknown>;

const keyOf = (value: unknown): unknown => {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (value instanceof Date) return value.toJSON();
  return typeof value === 'object' ? JSON.stringify(value) : value;
};

export const createValueIndex = (columns: readonly string[]): ValueIndex => {
  const root: Level = new Map();
  const last = columns.length - 1;
  const valueOf = (row: object, depth: number) => keyOf((row as Record<string, unknown>)[columns[depth] ?? '']);

  /** The map of the last column's values under `row`'s values of the others. */
  const levelOf = (row: object, create: boolean): Level | undefined => {
    let level = root;
    for (let depth = 0; depth < last; depth++) {
      const value = valueOf(row, depth);
      let next = level.get(value) as Level | undefined;
      if (!next) {
        if (!create) return undefined;
        next = new Map();
        level.set(value, next);
      }
      level = next;
    }
    return level;
  };

  const add = (row: object, id: string) => {
    const level = levelOf(row, true) as Level;
    const value = valueOf(row, last);
    const entry = level.get(value) as Entry | undefined;
    if (entry === undefined) level.set(value, id);
    else if (typeof entry === 'string') {
      if (entry !== id) level.set(value, new Set([entry, id]));
    }
    else entry.add(id);
  };

  const remove = (row: object, id: string) => {
    const level = levelOf(row, false);
    const value = valueOf(row, last);
    const entry = level?.get(value) as Entry | undefined;
    if (entry === id) level?.delete(value);
    else if (typeof entry === 'object') entry.delete(id);
  };

  const unchanged = (previous: object, row: object) => {
    for (const column of columns) if ((previous as Record<string, unknown>)[column] !== (row as Record<string, unknown>)[column]) return false;
    return true;
  };

  return {
    add,
    move(id, previous, row) {
      if (previous !== null && row !== null && unchanged(previous, row)) return;
      if (previous !== null) remove(previous, id);
      if (row !== null) add(row, id);
    },
    keys(where) {
      const entry = levelOf(where, false)?.get(valueOf(where, last)) as Entry | undefined;
      return entry === undefined ? [] : typeof entry === 'string' ? [entry] : [...entry];
    },
  };
};
