/**
 * Keys of rows by their values of some columns, for a document projection's fan-outs (`{ where }`
 * selectors) over rows held in memory. Values match by their JSON, as the rows are written: a date
 * and its ISO string alike, null and undefined alike, and numbers JSON cannot hold as null.
 */

export interface ValueIndex {
  add(row: object, id: string): void;
  /** Moves `id` from the entry of `previous` to that of `row` (either may be null); nothing to do when those columns did not change. */
  move(id: string, previous: object | null, row: object | null): void;
  /** Keys of the rows whose columns equal `where`'s. */
  keys(where: object): string[];
}

export const createValueIndex = (columns: readonly string[]): ValueIndex => {
  const entries = new Map<string, Set<string>>();
  const valuesOf = (row: object) => JSON.stringify(columns.map((column) => (row as Record<string, unknown>)[column] ?? null));
  const add = (row: object, id: string) => {
    const values = valuesOf(row);
    entries.set(values, (entries.get(values) ?? new Set<string>()).add(id));
  };
  const unchanged = (previous: object, row: object) => columns.every((column) => (previous as Record<string, unknown>)[column] === (row as Record<string, unknown>)[column]);
  return {
    add,
    move(id, previous, row) {
      if (previous !== null && row !== null && unchanged(previous, row)) return;
      if (previous !== null) {
        const values = valuesOf(previous);
        const ids = entries.get(values);
        ids?.delete(id);
        // Emptied entries go too: a live runner's index would otherwise keep every value it ever held.
        if (ids?.size === 0) entries.delete(values);
      }
      if (row !== null) add(row, id);
    },
    keys: (where) => [...(entries.get(valuesOf(where)) ?? [])],
  };
};
