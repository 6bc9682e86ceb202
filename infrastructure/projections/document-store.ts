import type { EntityName } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DomainEvent } from '../../domain/shared/events.js';
import { concerns, foldBatch, type DocumentProjection, type DocumentSource, type TableChanges } from './document-projection.js';
import type { Projection } from './projection.js';

/**
 * Runs a document projection on the read-model tables through MikroORM: a batch's rows are read
 * with one query per table, folded in memory, and written back with one upsert and one delete per
 * table, all inside the caller's transaction (the runner's, beside its checkpoint; the rebuild's,
 * on the fresh tables of its schema).
 */

const primaryKeyOf = (em: EntityManager, entity: EntityName<object>): string => {
  const [primaryKey] = em.getMetadata().get(entity).primaryKeys;
  if (primaryKey === undefined) throw new Error(`read model ${String(entity)} has no primary key`);
  return primaryKey;
};

const ormSource = (em: EntityManager): DocumentSource => {
  const select = async (entity: EntityName<object>, where: object) => {
    const primaryKey = primaryKeyOf(em, entity);
    // Hydrated (bigints as numbers, dates as Dates) but not managed: folds return new rows, which are upserted.
    const rows = await em.find(entity, where, { disableIdentityMap: true });
    return new Map(rows.map((row) => [String((row as Record<string, unknown>)[primaryKey]), row]));
  };
  return {
    load: (entity, ids) => select(entity, { [primaryKeyOf(em, entity)]: { $in: ids } }),
    find: select,
  };
};

const write = async (em: EntityManager, changes: readonly TableChanges[]) => {
  for (const { entity, upserts, deletes } of changes) {
    if (upserts.size > 0) await em.upsertMany(entity, [...upserts.values()]);
    if (deletes.length > 0) await em.nativeDelete(entity, { [primaryKeyOf(em, entity)]: { $in: deletes } });
  }
};

export const documentStore = <E extends DomainEvent>(projection: DocumentProjection<E>): Projection => ({
  name: projection.name,
  handles: (event) => concerns(projection, event),
  async apply(em, events) {
    await write(em, await foldBatch(projection, events, ormSource(em)));
  },
});
