import type { MikroORM } from '@mikro-orm/postgresql';
import type pg from 'pg';
import type { RecordedEvent } from '../../domain/shared/events.js';
import { ProjectionCheckpoint } from '../read-models/entities.js';
import { createCopier } from './copy-rows.js';
import { ormSource, tableOf } from './document-store.js';
import { createMemoryTables, type TableDrain } from './memory-tables.js';
import type { Projection } from './projection.js';
import { indexShadowTables, quoteIdentifier } from './rebuild-schema.js';

/**
 * A rebuild's first step: the whole log projected into empty tables without keys or indexes yet.
 * Projections with pure folds fold it in memory (memory-tables.ts); every `holdRowsFor` events,
 * the rows no event changed for that long are copied into the tables (copy-rows.ts) while the
 * fold goes on, so that PostgreSQL stores them on another core. Keys and indexes are built at the
 * end, or as soon as something must search the tables: a row written out that an event changes
 * again, or a projection without pure folds, which applies the log batch by batch.
 */

type Step = (events: readonly RecordedEvent[], position: number) => Promise<void>;

export interface BulkLoadOptions {
  readonly orm: MikroORM;
  /** The connection that writes the rows, one write at a time. */
  readonly control: pg.Client;
  readonly schema: string;
  readonly tables: readonly string[];
  readonly projections: readonly Projection[];
  readonly holdRowsFor: number;
  /** Hands `step` the whole log, page by page. */
  readonly readLog: (step: Step) => Promise<{ position: number; events: number }>;
  /** Applies a batch to the tables of `schema` with these projections' `apply`, beside their checkpoints. */
  readonly applyBatch: (writers: readonly Projection[], events: readonly RecordedEvent[], position: number) => Promise<void>;
}

/** Writes rows handed over by the memory tables: a delete of those rewritten (by key: `index` first), then a COPY per table. */
const writer = (orm: MikroORM, control: pg.Client, schema: string, index: () => Promise<void>) => {
  const em = orm.em.fork({ schema });
  const copy = createCopier(control);
  return async (drains: readonly TableDrain[]) => {
    for (const { entity, replaced, rows } of drains) {
      const { name, columns, keyColumn } = tableOf(em, entity);
      if (replaced.length > 0) {
        await index();
        await control.query(`delete from ${name} where ${quoteIdentifier(keyColumn)} = any($1)`, [replaced]);
      }
      if (rows.size > 0) await copy(name, columns, rows.values());
    }
  };
};

export const bulkLoad = async ({ orm, control, schema, tables, projections, holdRowsFor, readLog, applyBatch }: BulkLoadOptions) => {
  const folded = projections.flatMap((projection) => (projection.document ? [projection.document] : []));
  const applied = projections.filter((projection) => !projection.document);
  let indexed: Promise<void> | null = null;
  const index = () => (indexed ??= indexShadowTables(control, schema, tables));
  if (applied.length > 0) await index();

  const write = writer(orm, control, schema, index);
  // One write at a time, in order; a row is read back only once the writes before have landed.
  let writing: Promise<void> = Promise.resolve();
  const writeOut = async (drains: readonly TableDrain[]) => {
    // Waiting for the previous write bounds memory when PostgreSQL is slower than the fold.
    await writing;
    writing = write(drains);
    // A failure is thrown by the next await of `writing`; this only keeps it from counting as unhandled meanwhile.
    writing.catch(() => undefined);
  };
  const stored = ormSource(orm.em.fork({ schema }));
  const memory = createMemoryTables(
    {
      load: async (entity, ids) => {
        await writing;
        await index();
        return stored.load(entity, ids);
      },
      find: async (entity, wheres) => {
        await writing;
        await index();
        return stored.find(entity, wheres);
      },
    },
    // The only writer of its fresh tables: a key neither held nor written has no row.
    { complete: true },
  );

  let held = 0;
  const loaded = await readLog(async (events, position) => {
    await applyBatch(applied, events, position);
    for (const projection of folded) await memory.fold(projection, events);
    held += events.length;
    if (held >= holdRowsFor) {
      held = 0;
      await writeOut(memory.evict());
    }
  });
  await writeOut(memory.drain());
  await writing;
  await index();
  if (loaded.events > 0 && folded.length > 0) {
    await orm.em.fork({ schema }).upsertMany(
      ProjectionCheckpoint,
      folded.map(({ name }) => ({ name, position: loaded.position })),
    );
  }
  return loaded;
};
