import type { EntityName } from '@mikro-orm/core';
import { expect } from 'vitest';
import type { DomainEvent, RecordedEvent } from '../../domain/shared/events.js';
import type { DocumentProjection, DocumentSource } from '../../infrastructure/projections/document-projection.js';
import { foldBatch } from '../../infrastructure/projections/memory-tables.js';

/**
 * Projection specs in the style of emmett's PostgreSQLProjectionSpec, on the pure folds alone:
 * given events already projected, when more arrive, then the tables hold exactly these rows.
 * Given and when are folded as two batches over an in-memory table store, so every spec also
 * shows that a batch boundary changes nothing.
 */

export interface SpecEvent<E extends DomainEvent = DomainEvent> {
  readonly stream: string;
  readonly event: E;
  /** The organization whose context recorded the event; the test's own when left out. */
  readonly orgId?: string;
}

export const on = <E extends DomainEvent>(stream: string, event: E, orgId?: string): SpecEvent<E> => ({ stream, event, ...(orgId === undefined ? {} : { orgId }) });

/** Expected rows of one table, in any order. */
export const rows = <Row extends object>(entity: EntityName<Row>, expected: readonly Row[]) => ({ entity: entity as EntityName<object>, expected: expected as readonly object[] });

const matches = (row: object, where: object) => Object.entries(where).every(([column, value]) => (row as Record<string, unknown>)[column] === value);

const memoryTables = () => {
  const tables = new Map<EntityName<object>, Map<string, object>>();
  const table = (entity: EntityName<object>) => {
    const found = tables.get(entity) ?? new Map<string, object>();
    tables.set(entity, found);
    return found;
  };
  const source: DocumentSource = {
    load: async (entity, ids) => new Map(ids.flatMap((id) => (table(entity).has(id) ? [[id, table(entity).get(id) as object] as const] : []))),
    find: async (entity, wheres) => new Map([...table(entity)].filter(([, row]) => wheres.some((where) => matches(row, where)))),
  };
  return { tables, table, source };
};

/** Records spec events as the log would: positions in order, revisions per stream, `orgId` unless an event names its own. */
export const recorder = (orgId: string) => {
  let position = 0;
  const revisions = new Map<string, number>();
  return ({ stream, event, orgId: recordedFor = orgId }: SpecEvent): RecordedEvent => {
    const revision = revisions.get(stream) ?? 0;
    revisions.set(stream, revision + 1);
    const eventId = `event-${position}`;
    return {
      ...event,
      metadata: { eventId, schemaVersion: 1, occurredAt: new Date(0).toISOString(), orgId: recordedFor, actor: 'system', correlationId: eventId, causationId: eventId },
      streamName: stream,
      revision,
      position: position++,
    };
  };
};

export const projectionSpec = <E extends DomainEvent>(projection: DocumentProjection<E>, options: { orgId: string }) => {
  const record = recorder(options.orgId);

  return {
    given: (...given: SpecEvent[]) => ({
      when: (...when: SpecEvent[]) => ({
        /** Tables left out must hold no row. */
        then: async (...expected: ReturnType<typeof rows>[]) => {
          const memory = memoryTables();
          for (const batch of [given.map(record), when.map(record)]) {
            for (const { entity, upserts, deletes } of await foldBatch(projection, batch, memory.source)) {
              const table = memory.table(entity);
              for (const [id, row] of upserts) table.set(id, row);
              for (const id of deletes) table.delete(id);
            }
          }
          const actual = new Map([...memory.tables].filter(([, table]) => table.size > 0).map(([entity, table]) => [entity, [...table.values()]]));
          for (const { entity, expected: expectedRows } of expected) {
            expect(actual.get(entity) ?? []).toEqual(expect.arrayContaining([...expectedRows]));
            expect(actual.get(entity) ?? []).toHaveLength(expectedRows.length);
            actual.delete(entity);
          }
          expect([...actual.values()].flat(), 'rows in tables the spec expects to be empty').toEqual([]);
        },
      }),
    }),
  };
};
