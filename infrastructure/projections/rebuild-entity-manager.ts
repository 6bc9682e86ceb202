import type { EntityManager, EntityName } from '@mikro-orm/postgresql';

/**
 * The entity manager projections get during a rebuild, whose transaction has MikroORM's COMMIT
 * flush mode. A live runner lets MikroORM flush before every query touching a changed entity type,
 * which for a render's completion right after its request means a round trip per event. Here the
 * changes of a whole batch stay in memory until it commits, and every read still sees them:
 * - lookups by primary key are answered from the identity map, which holds every pending change;
 * - finds by plain equality of scalar columns are answered from the database merged with the
 *   identity map and filtered by the values in memory (pending inserts and changes included,
 *   pending removals excluded);
 * - anything else flushes first, as MikroORM's AUTO mode would.
 * Projections therefore build exactly the rows a live runner builds.
 */

const DATABASE_CALLS = new Set(['findAll', 'findAndCount', 'findByCursor', 'count', 'execute', 'nativeInsert', 'nativeUpdate', 'nativeDelete', 'upsert', 'upsertMany', 'populate', 'refresh']);
const LOOKUPS = new Set(['findOne', 'findOneOrFail']);
const SCALAR_TYPES = new Set(['string', 'number', 'boolean']);

type Where = Record<string, unknown>;

const isPrimaryKeyLookup = (em: EntityManager, entityName: EntityName, where: unknown): boolean => {
  if (where === null || typeof where !== 'object') return true;
  const keys = Object.keys(where);
  const primaryKeys = em.getMetadata().get(entityName).primaryKeys as readonly string[];
  return keys.length === primaryKeys.length && keys.every((key) => primaryKeys.includes(key) && typeof (where as Where)[key] !== 'object');
};

/** `{ column: value, ... }` over scalar columns only: something the identity map can be filtered by. */
const plainEquality = (em: EntityManager, entityName: EntityName, where: unknown, options: unknown): where is Where => {
  if (where === null || typeof where !== 'object' || Array.isArray(where)) return false;
  if (options !== undefined && (typeof options !== 'object' || Object.keys(options as object).length > 0)) return false;
  const { properties } = em.getMetadata().get(entityName);
  return Object.entries(where).every(([key, value]) => {
    const property = (properties as Record<string, { runtimeType?: string } | undefined>)[key];
    return property !== undefined && SCALAR_TYPES.has(property.runtimeType ?? '') && (value === null || SCALAR_TYPES.has(typeof value));
  });
};

const findWithPendingChanges = async (em: EntityManager, entityName: EntityName, where: Where): Promise<unknown[]> => {
  const stored = await em.find(entityName, where);
  const uow = em.getUnitOfWork();
  const removed = uow.getRemoveStack();
  const matches = (entity: object) => !removed.has(entity) && Object.entries(where).every(([key, value]) => (entity as Where)[key] === value);
  const found = new Set<object>(stored.filter(matches));
  for (const entity of uow.getIdentityMap().getStore(em.getMetadata().get(entityName)).values()) {
    if (matches(entity as object)) found.add(entity as object);
  }
  return [...found];
};

export const batchEntityManager = (em: EntityManager): EntityManager =>
  new Proxy(em, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (property === 'find') {
        return async (entityName: EntityName, where: unknown, options?: unknown) => {
          if (plainEquality(target, entityName, where, options)) return findWithPendingChanges(target, entityName, where);
          await target.flush();
          return method.call(target, entityName, where, options);
        };
      }
      if (DATABASE_CALLS.has(property)) {
        return async (...args: unknown[]) => {
          await target.flush();
          return method.apply(target, args);
        };
      }
      if (LOOKUPS.has(property)) {
        return async (entityName: EntityName, where: unknown, ...rest: unknown[]) => {
          if (!isPrimaryKeyLookup(target, entityName, where)) await target.flush();
          return method.call(target, entityName, where, ...rest);
        };
      }
      return method.bind(target);
    },
  });
