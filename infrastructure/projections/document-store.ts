import type { EntityName } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { DomainEvent, RecordedEvent } from '../../domain/shared/events.js';
import { concerns, type DocumentProjection, type DocumentSource, type TableChanges } from './document-projection.js';
import { changesOf, createMemoryTables, foldBatch, foldInto } from './memory-tables.js';
import { CHECKPOINTS, type CheckpointMove, type Projection } from './projection.js';

/**
 * Runs a document projection on the read-model tables through MikroORM: a batch's rows are read
 * with one query per table, folded in memory, and written back with one statement per table, all
 * inside the caller's transaction (the runner's, beside its checkpoint; the rebuild's, on the
 * fresh tables of its schema, for what was appended after its bulk load).
 */

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

interface Table {
  readonly primaryKey: string;
  /** `memberName`: the column's name as a JSON member starts, `"name":`. */
  readonly columns: readonly { readonly property: string; readonly column: string; readonly memberName: string }[];
  readonly name: string;
  readonly keyColumn: string;
  /** The quoted column list, and the upsert's `set` of every column but the key. */
  readonly columnList: string;
  readonly updates: readonly string[];
}

/** Tables by their entity's metadata and the schema they are read in (a rebuild writes tables of its own schema). */
const tables = new WeakMap<object, Map<string, Table>>();

/** An entity's table as its statements name it; worked out once per schema, since every batch of every projection asks. */
export const tableOf = (em: EntityManager, entity: EntityName<object>): Table => {
  const meta = em.getMetadata().get(entity);
  const schema = em.schema ?? meta.schema;
  let bySchema = tables.get(meta);
  if (!bySchema) {
    bySchema = new Map<string, Table>();
    tables.set(meta, bySchema);
  }
  const known = bySchema.get(schema ?? '');
  if (known) return known;
  const [primaryKey] = meta.primaryKeys;
  if (primaryKey === undefined) throw new Error(`read model ${meta.className} has no primary key`);
  const columns = meta.props
    .filter((prop) => prop.persist !== false)
    .map((prop) => {
      const column = prop.fieldNames[0] ?? prop.name;
      return { property: prop.name, column, memberName: `${JSON.stringify(column)}:` };
    });
  const name = schema ? `${quote(schema)}.${quote(meta.tableName)}` : quote(meta.tableName);
  const keyColumn = columns.find((column) => column.property === primaryKey)?.column ?? primaryKey;
  const table = {
    primaryKey,
    columns,
    name,
    keyColumn,
    columnList: columns.map(({ column }) => quote(column)).join(', '),
    updates: columns.filter(({ column }) => column !== keyColumn).map(({ column }) => `${quote(column)} = excluded.${quote(column)}`),
  };
  bySchema.set(schema ?? '', table);
  return table;
};

/**
 * The rows as the JSON array json_populate_recordset reads: each row's values under its columns'
 * names, null where it has none. Written value by value rather than as objects renamed for
 * JSON.stringify: a results row has two dozen columns, and one is written for every cache hit.
 */
const rowsJson = (table: Table, rows: Iterable<object>): string => {
  let text = '';
  for (const row of rows) {
    let members = '';
    for (const { property, memberName } of table.columns) members += `${members === '' ? '' : ','}${memberName}${JSON.stringify((row as Record<string, unknown>)[property] ?? null)}`;
    text += `${text === '' ? '' : ','}{${members}}`;
  }
  return `[${text}]`;
};

export const ormSource = (em: EntityManager): DocumentSource => {
  const select = async (entity: EntityName<object>, where: object) => {
    const { primaryKey } = tableOf(em, entity);
    // Hydrated (bigints as numbers, dates as Dates) but not managed: folds return new rows, which are written below.
    const rows = await em.find(entity, where, { disableIdentityMap: true });
    return new Map(rows.map((row) => [String((row as Record<string, unknown>)[primaryKey]), row]));
  };
  return {
    load: (entity, ids) => select(entity, { [tableOf(em, entity).primaryKey]: { $in: ids } }),
    find: async (entity, wheres) => (wheres.length === 0 ? new Map() : select(entity, { $or: [...wheres] })),
  };
};

/**
 * One upsert per table for the whole batch: the rows go as one JSON document that PostgreSQL turns
 * into the table's own column types (arrays, jsonb, timestamps), where MikroORM's upsertMany would
 * build an entity per row and a statement per few hundred. It goes through MikroORM's Kysely, in
 * the same transaction, as a bound parameter: `em.execute` inlines parameters into the SQL text,
 * and escaping a batch's megabytes of JSON character by character cost more than writing them.
 * `onlyIf` gates the rows on a condition of the statement they are part of.
 */
const upsertOf = (em: EntityManager, { entity, upserts }: TableChanges, onlyIf = sql``) => {
  const table = tableOf(em, entity);
  const { name, keyColumn, columnList: list, updates } = table;
  return sql`insert into ${sql.raw(`${name} (${list})`)} select ${sql.raw(list)} from json_populate_recordset(null::${sql.raw(name)}, ${rowsJson(table, upserts.values())}::json) ${onlyIf}
     on conflict (${sql.raw(quote(keyColumn))}) do ${sql.raw(updates.length > 0 ? `update set ${updates.join(', ')}` : 'nothing')}`;
};

/** The stored rows of these keys deleted, the keys given as JSON like the upserts' rows (so in the key column's own type). */
const deleteOf = (em: EntityManager, { entity, deletes }: TableChanges, onlyIf = sql``) => {
  const { name, keyColumn } = tableOf(em, entity);
  const keys = JSON.stringify(deletes.map((key) => ({ [keyColumn]: key })));
  return sql`delete from ${sql.raw(name)} as stored using json_populate_recordset(null::${sql.raw(name)}, ${keys}::json) as gone
     where stored.${sql.raw(quote(keyColumn))} = gone.${sql.raw(quote(keyColumn))} ${onlyIf}`;
};

const write = async (em: EntityManager, changes: readonly TableChanges[]) => {
  for (const change of changes) {
    if (change.upserts.size > 0) await upsertOf(em, change).execute(em.getKysely());
    if (change.deletes.length > 0) await deleteOf(em, change).execute(em.getKysely());
  }
};

/**
 * The batch's rows and its checkpoint's move in one statement, which changes nothing unless the
 * checkpoint still stands at `from`: then nobody applied anything since the rows were read, so
 * they are what the batch was folded from. The checkpoint's row is named first, so the statement
 * waits behind a runner or a rebuild that holds it, and sees where they left it. With `table`, the
 * checkpoint must also still be a row of that table (its `tableoid`): a rebuild's swap brings in
 * tables of its own, checkpoints included, possibly at the very position this runner left. Returns
 * the checkpoint table's oid when it wrote, null when it did not.
 */
const writeIfCheckpointAt = async (em: EntityManager, changes: readonly TableChanges[], { name, from, to }: CheckpointMove, table: string | null): Promise<string | null> => {
  const moved = sql`exists (select from moved)`;
  const steps = changes.flatMap((change) => [
    ...(change.upserts.size > 0 ? [upsertOf(em, change, sql`where ${moved}`)] : []),
    ...(change.deletes.length > 0 ? [deleteOf(em, change, sql`and ${moved}`)] : []),
  ]);
  const sameTable = table === null ? sql`` : sql`and tableoid = ${table}::oid`;
  const { rows } = await sql<{ table: string }>`with moved as (update ${CHECKPOINTS} set position = ${to} where name = ${name} and position = ${from} ${sameTable} returning tableoid::text as table)
    ${sql.join(
      steps.map((step, index) => sql`, ${sql.raw(`step${index}`)} as (${step})`),
      sql``,
    )}
    select "table" from moved`.execute(em.getKysely());
  return rows[0]?.table ?? null;
};

/** Enough for the renders in flight at once and their accounts; a result row can hold up to a few hundred KB of request data. */
const ROWS_PER_TABLE = 256;

/**
 * One runner's batches written where it left the checkpoint (see writeIfCheckpointAt), folded from
 * the rows its earlier batches read and wrote while the checkpoint stays where it left it, in the
 * table it left it in: they are what the tables hold for as long as nobody else writes them, which
 * the runner knows by its checkpoint, since every write to a projection's rows moves it. A render's
 * result row is then not read back at its completion, nor its account's row at every charge and
 * completion, on the path of the answer that waits for the read models. Whenever the checkpoint is
 * not where it was left (another instance applied, a swap came), or a write's outcome is unknown,
 * the rows are forgotten and read afresh.
 */
const applierAtCheckpoint = <E extends DomainEvent>(projection: DocumentProjection<E>) => {
  /** The tables as the batch in progress reads them, through its own entity manager (set before each fold). */
  let batchSource: DocumentSource;
  const source: DocumentSource = {
    load: (entity, ids) => batchSource.load(entity, ids),
    find: (entity, wheres) => batchSource.find(entity, wheres),
  };
  let memory = createMemoryTables(source, { complete: false });
  /** The checkpoint table the rows held belong with; null while nothing is held. */
  let table: string | null = null;
  const forget = () => {
    memory = createMemoryTables(source, { complete: false });
    table = null;
  };
  return async (em: EntityManager, events: readonly RecordedEvent[], move: CheckpointMove): Promise<readonly TableChanges[] | null> => {
    batchSource = ormSource(em);
    try {
      await foldInto(memory, projection, events);
      const changes = changesOf(memory.commit(ROWS_PER_TABLE));
      table = await writeIfCheckpointAt(em, changes, move, table);
      if (table === null) forget();
      return table === null ? null : changes;
    } catch (error) {
      forget();
      throw error;
    }
  };
};

export const documentStore = <E extends DomainEvent>(projection: DocumentProjection<E>): Projection => ({
  name: projection.name,
  handles: (event) => concerns(projection, event),
  async apply(em, events) {
    await write(em, await foldBatch(projection, events, ormSource(em)));
  },
  applierAtCheckpoint: () => applierAtCheckpoint(projection),
  document: projection,
});
