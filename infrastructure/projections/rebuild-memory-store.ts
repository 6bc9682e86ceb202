import type { EntityManager, EntityMetadata, EntityName, MikroORM } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { quoteIdentifier } from './rebuild-schema.js';

/**
 * What projections get as their entity manager during a rebuild: read-model rows as plain objects
 * in memory, written to the fresh tables once per batch with one statement per table. A live
 * runner's MikroORM unit of work costs tens of microseconds per entity and a round trip whenever a
 * query follows a change; this costs a few microseconds per event, so a rebuild runs at many times
 * the speed of following the log.
 *
 * It offers what projections use (create, findOne, findOneOrFail, find by plain equality, assign,
 * remove, persist, flush), with the same results: lookups see the batch's pending changes, rows
 * not yet in memory come from the fresh tables. Anything else throws UnsupportedInMemory, and the
 * rebuild falls back to MikroORM for the whole run.
 */

export class UnsupportedInMemory extends Error {
  constructor(what: string) {
    super(`a projection used ${what}, which the in-memory rebuild does not offer`);
    this.name = 'UnsupportedInMemory';
  }
}

type Row = Record<string, unknown>;

interface Column {
  readonly property: string;
  readonly column: string;
  readonly isDate: boolean;
  /** Value of a property left unset on create, as the migration's column default gives it. */
  readonly fallback: unknown;
}

interface Table {
  readonly meta: EntityMetadata;
  readonly name: string;
  readonly primaryKey: Column;
  readonly columns: readonly Column[];
  /** Rows in memory, by primary key: this batch's and, up to a bound, earlier batches'. */
  readonly rows: Map<unknown, Row>;
  /** Rows as last written or read, in JSON: a touched row is written back only if it changed. */
  readonly stored: Map<unknown, string>;
  /** Rows handed to a projection in this batch, which may have changed them. */
  readonly touched: Set<unknown>;
  readonly removed: Set<unknown>;
}

/** Rows kept in memory between batches; past this the memory is emptied and rows are read again as needed. */
const MAX_KEPT_ROWS = 200_000;

const SCALARS = new Set(['string', 'number', 'boolean']);

const tableOf = (meta: EntityMetadata): Omit<Table, 'rows' | 'stored' | 'touched' | 'removed'> => {
  if (meta.primaryKeys.length !== 1) throw new UnsupportedInMemory(`entity ${meta.className} with a composite primary key`);
  const columns = meta.props.map((prop) => {
    if (prop.kind !== 'scalar' || prop.fieldNames.length !== 1) throw new UnsupportedInMemory(`property ${meta.className}.${prop.name}`);
    const fallback = prop.default === undefined ? null : prop.default;
    return { property: prop.name, column: prop.fieldNames[0] ?? prop.name, isDate: prop.runtimeType === 'Date', fallback };
  });
  const primaryKey = columns.find((column) => column.property === meta.primaryKeys[0]);
  if (!primaryKey) throw new UnsupportedInMemory(`entity ${meta.className} without a primary key column`);
  return { meta, name: meta.tableName, primaryKey, columns };
};

export interface MemoryStore {
  /** The entity manager to hand to projections. */
  readonly em: EntityManager;
  /** Writes the batch's changes through `client`, inside the caller's transaction. */
  flush(client: pg.ClientBase): Promise<void>;
  /** Forgets everything held: after a failed batch, memory may hold changes the database does not. */
  clear(): void;
}

export const createMemoryStore = (orm: MikroORM, schema: string, reader: pg.ClientBase): MemoryStore => {
  const tables = new Map<EntityMetadata, Table>();
  const owner = new WeakMap<Row, Table>();
  const qualified = (table: Table) => `${quoteIdentifier(schema)}.${quoteIdentifier(table.name)}`;

  const table = (entityName: EntityName): Table => {
    const meta = orm.getMetadata().get(entityName);
    let found = tables.get(meta);
    if (!found) {
      found = { ...tableOf(meta), rows: new Map(), stored: new Map(), touched: new Set(), removed: new Set() };
      tables.set(meta, found);
    }
    return found;
  };

  const touch = (target: Table, key: unknown, row: Row): Row => {
    target.touched.add(key);
    return row;
  };

  const fromStored = (target: Table, stored: Row): Row => {
    const row: Row = {};
    for (const { property, column, isDate } of target.columns) {
      const value = stored[column] ?? null;
      row[property] = isDate && value !== null ? new Date(String(value)) : value;
    }
    return row;
  };

  /** Remembers a row read from the fresh tables, unless the batch already holds a newer one. */
  const adopt = (target: Table, stored: Row): Row => {
    const row = fromStored(target, stored);
    const key = row[target.primaryKey.property];
    const held = target.rows.get(key);
    if (held) return touch(target, key, held);
    target.rows.set(key, row);
    target.stored.set(key, JSON.stringify(row));
    owner.set(row, target);
    return touch(target, key, row);
  };

  const select = async (target: Table, where: Row): Promise<Row[]> => {
    const conditions: string[] = [];
    const values: unknown[] = [];
    for (const [property, value] of Object.entries(where)) {
      const column = target.columns.find((candidate) => candidate.property === property);
      if (!column) throw new UnsupportedInMemory(`a query on ${target.meta.className}.${property}`);
      if (value === null) conditions.push(`${quoteIdentifier(column.column)} is null`);
      else {
        values.push(value);
        conditions.push(`${quoteIdentifier(column.column)} = $${values.length}`);
      }
    }
    const { rows } = await reader.query<{ row: Row }>(`select to_jsonb(t) as row from ${qualified(target)} t where ${conditions.join(' and ') || 'true'}`, values);
    return rows.map(({ row }) => row);
  };

  const plainEquality = (where: unknown): where is Row =>
    where !== null && typeof where === 'object' && !Array.isArray(where) && Object.values(where).every((value) => value === null || SCALARS.has(typeof value));

  const matches = (row: Row, where: Row) => Object.entries(where).every(([property, value]) => (row[property] ?? null) === value);

  const find = async (entityName: EntityName, where: unknown, options?: unknown): Promise<Row[]> => {
    if (options !== undefined && Object.keys(options as object).length > 0) throw new UnsupportedInMemory('find with options');
    if (!plainEquality(where)) throw new UnsupportedInMemory('find with a condition other than plain equality');
    const target = table(entityName);
    const keyOf = (row: Row) => row[target.primaryKey.property];
    // Rows unchanged since they were last written are as the database has them, so its answer
    // covers them; only rows touched in this batch may match in memory but not there.
    const candidates = new Map<unknown, Row>();
    for (const stored of await select(target, where)) {
      const row = adopt(target, stored);
      candidates.set(keyOf(row), row);
    }
    for (const key of target.touched) {
      const row = target.rows.get(key);
      if (row) candidates.set(key, row);
    }
    return [...candidates].filter(([key, row]) => !target.removed.has(key) && matches(row, where)).map(([key, row]) => touch(target, key, row));
  };

  const findOne = async (entityName: EntityName, where: unknown, options?: unknown): Promise<Row | null> => {
    if (options !== undefined && Object.keys(options as object).length > 0) throw new UnsupportedInMemory('findOne with options');
    const target = table(entityName);
    const key = plainEquality(where) && Object.keys(where).length === 1 ? where[target.primaryKey.property] : undefined;
    if (key === undefined) return (await find(entityName, where))[0] ?? null;
    if (target.removed.has(key)) return null;
    const held = target.rows.get(key);
    if (held) return touch(target, key, held);
    const [stored] = await select(target, { [target.primaryKey.property]: key });
    return stored ? adopt(target, stored) : null;
  };

  const create = (entityName: EntityName, data: Row): Row => {
    const target = table(entityName);
    const row: Row = { ...data };
    const key = row[target.primaryKey.property];
    if (key === undefined || key === null) throw new UnsupportedInMemory(`creating ${target.meta.className} without its primary key`);
    target.rows.set(key, row);
    target.removed.delete(key);
    owner.set(row, target);
    return touch(target, key, row);
  };

  const ownerOf = (row: unknown): Table => {
    const target = typeof row === 'object' && row !== null ? owner.get(row as Row) : undefined;
    if (!target) throw new UnsupportedInMemory('an entity that did not come from this entity manager');
    return target;
  };

  const operations: Record<string, (...args: never[]) => unknown> = {
    create,
    find,
    findOne,
    async findOneOrFail(entityName: EntityName, where: unknown, options?: unknown) {
      const row = await findOne(entityName, where, options);
      if (!row) throw new Error(`${table(entityName).meta.className} not found`);
      return row;
    },
    assign(row: Row, data: Row) {
      ownerOf(row);
      return Object.assign(row, data);
    },
    remove(row: Row) {
      const target = ownerOf(row);
      target.removed.add(row[target.primaryKey.property]);
    },
    persist(row: Row) {
      ownerOf(row);
    },
    /** Writes happen once per batch; an explicit flush has nothing to do before that. */
    async flush() {},
    getMetadata: () => orm.getMetadata(),
  };

  const em = new Proxy({} as EntityManager, {
    get(_target, property) {
      if (typeof property !== 'string') return undefined;
      const operation = operations[property];
      if (!operation) throw new UnsupportedInMemory(`em.${property}`);
      return operation;
    },
  });

  const storedForm = (target: Table, row: Row) => {
    const stored: Row = {};
    for (const { property, column, fallback } of target.columns) stored[column] = row[property] === undefined ? fallback : row[property];
    return stored;
  };

  return {
    em,
    clear: () => tables.clear(),
    async flush(client) {
      let kept = 0;
      for (const target of tables.values()) {
        const written: Row[] = [];
        for (const key of target.touched) {
          const row = target.rows.get(key);
          if (!row || target.removed.has(key)) continue;
          const now = JSON.stringify(row);
          if (target.stored.get(key) === now) continue;
          written.push(storedForm(target, row));
          target.stored.set(key, now);
        }
        if (written.length > 0) {
          const columns = target.columns.map(({ column }) => quoteIdentifier(column));
          const updates = target.columns.filter((column) => column !== target.primaryKey).map(({ column }) => `${quoteIdentifier(column)} = excluded.${quoteIdentifier(column)}`);
          // PostgreSQL turns the JSON into the table's own column types (arrays, jsonb, timestamps).
          await client.query(
            `insert into ${qualified(target)} (${columns.join(', ')}) select ${columns.join(', ')} from json_populate_recordset(null::${qualified(target)}, $1::json)
             on conflict (${quoteIdentifier(target.primaryKey.column)}) do ${updates.length > 0 ? `update set ${updates.join(', ')}` : 'nothing'}`,
            [JSON.stringify(written)],
          );
        }
        const deleted = [...target.removed].filter((key) => target.stored.has(key)).map((key) => ({ [target.primaryKey.column]: key }));
        if (deleted.length > 0) {
          const key = quoteIdentifier(target.primaryKey.column);
          await client.query(`delete from ${qualified(target)} t using json_populate_recordset(null::${qualified(target)}, $1::json) d where t.${key} = d.${key}`, [
            JSON.stringify(deleted),
          ]);
        }
        for (const key of target.removed) {
          target.rows.delete(key);
          target.stored.delete(key);
        }
        target.removed.clear();
        target.touched.clear();
        kept += target.rows.size;
      }
      if (kept > MAX_KEPT_ROWS) tables.clear();
    },
  };
};
