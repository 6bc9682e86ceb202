import type { EntityName } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { DomainEvent } from '../../domain/shared/events.js';
import { concerns, foldBatch, type DocumentProjection, type DocumentSource, type TableChanges } from './document-projection.js';
import type { Projection } from './projection.js';

/**
 * Runs a document projection on the read-model tables through MikroORM: a batch's rows are read
 * with one query per table, folded in memory, and written back with one statement per table, all
 * inside the caller's transaction (the runner's, beside its checkpoint; the rebuild's, on the
 * fresh tables of its schema, for what was appended after its bulk load).
 */

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

export const tableOf = (em: EntityManager, entity: EntityName<object>) => {
  const meta = em.getMetadata().get(entity);
  const [primaryKey] = meta.primaryKeys;
  if (primaryKey === undefined) throw new Error(`read model ${meta.className} has no primary key`);
  const columns = meta.props.filter((prop) => prop.persist !== false).map((prop) => ({ property: prop.name, column: prop.fieldNames[0] ?? prop.name }));
  const schema = em.schema ?? meta.schema;
  const name = schema ? `${quote(schema)}.${quote(meta.tableName)}` : quote(meta.tableName);
  const keyColumn = columns.find((column) => column.property === primaryKey)?.column ?? primaryKey;
  return { primaryKey, columns, name, keyColumn };
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
 */
const write = async (em: EntityManager, changes: readonly TableChanges[]) => {
  for (const { entity, upserts, deletes } of changes) {
    const { primaryKey, columns, name, keyColumn } = tableOf(em, entity);
    if (upserts.size > 0) {
      const list = columns.map(({ column }) => quote(column)).join(', ');
      const updates = columns.filter(({ column }) => column !== keyColumn).map(({ column }) => `${quote(column)} = excluded.${quote(column)}`);
      const rows = [...upserts.values()].map((row) => Object.fromEntries(columns.map(({ property, column }) => [column, (row as Record<string, unknown>)[property] ?? null])));
      await sql`insert into ${sql.raw(`${name} (${list})`)} select ${sql.raw(list)} from json_populate_recordset(null::${sql.raw(name)}, ${JSON.stringify(rows)}::json)
         on conflict (${sql.raw(quote(keyColumn))}) do ${sql.raw(updates.length > 0 ? `update set ${updates.join(', ')}` : 'nothing')}`.execute(em.getKysely());
    }
    if (deletes.length > 0) await em.nativeDelete(entity, { [primaryKey]: { $in: [...deletes] } });
  }
};

export const documentStore = <E extends DomainEvent>(projection: DocumentProjection<E>): Projection => ({
  name: projection.name,
  handles: (event) => concerns(projection, event),
  async apply(em, events) {
    await write(em, await foldBatch(projection, events, ormSource(em)));
  },
  document: projection,
});
