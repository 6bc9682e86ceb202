import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { Logger } from 'pino';
import type { EventStore } from '../../application/ports/event-store.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import { ProjectionCheckpoint } from '../read-models/entities.js';
import { bulkLoad } from './bulk-load.js';
import type { Projection } from './projection.js';
import { allProjections } from './projection-set.js';
import { compareTables, createShadowTables, dropSchema, moveTables, quoteIdentifier, type TableDifference } from './rebuild-schema.js';

/**
 * Rebuilds every read model from position 0 into fresh tables beside the live ones, then either
 * compares them with the live tables (verify) or swaps them in (swap), with the live service
 * serving reads and following the log throughout.
 *
 * The fresh tables are first loaded in bulk (bulk-load.ts): the log is folded in memory by the
 * projections' own pure folds and the rows are copied in once events are done with them, with no
 * transaction, upsert or index upkeep per batch. What is appended after that is applied batch by
 * batch, as the live runners apply it.
 *
 * The swap cannot make a live projection runner apply an event twice or skip one. A runner applies
 * a batch in one transaction that starts by locking its checkpoint row. The swap holds an
 * exclusive lock on the checkpoint table while it brings the fresh tables up to the log's head H
 * and moves the tables; a runner waiting meanwhile resolves the table name again once the lock is
 * released (PostgreSQL re-resolves a name after waiting for its lock), so it reads the fresh
 * checkpoint H and applies only events after H to the fresh tables. A runner can never have
 * applied past H, because H is read after every runner's transaction has finished.
 */

export interface RebuildOptions {
  readonly orm: MikroORM;
  /** The read models' database. */
  readonly databaseUrl: string;
  readonly eventStore: EventStore;
  readonly logger: Logger;
  readonly projections?: readonly Projection[];
  /** Events read (and applied, after the bulk load) per batch. */
  readonly batchSize?: number;
  /** Rows a bulk load holds in memory are written out once no event changed them in this many events (up to twice as many). */
  readonly holdRowsFor?: number;
  /** Called after each batch with the position reached and the head the rebuild aims for; awaited before the next batch. */
  readonly onProgress?: (position: number, head: number) => void | Promise<void>;
  /** How long a verify waits for the live projections to reach the rebuild (they must be running somewhere). */
  readonly liveWaitMs?: number;
}

export interface RebuildReport {
  /** Position the rebuilt tables reflect. */
  readonly position: number;
  readonly events: number;
  readonly seconds: number;
  readonly tables: readonly string[];
}

export interface RebuildVerifyReport extends RebuildReport {
  readonly differences: readonly TableDifference[];
}

const CHECKPOINTS = 'projection_checkpoints';
const DEFAULT_BATCH = 5_000;
/** A render's events come within a few hundred events of one another: its rows are written soon after it is done. */
const DEFAULT_HOLD_ROWS_FOR = 50_000;
/** A swap that cannot get its locks in this long gives up instead of stalling readers behind it. */
const SWAP_LOCK_TIMEOUT = '10s';

/** Every table an entity maps: the read models are exactly what the ORM knows. */
export const readModelTables = (orm: MikroORM): string[] =>
  [...new Set([...orm.getMetadata().getAll().values()].map((meta) => meta.tableName))].sort();

const uniqueName = (prefix: string) => `${prefix}_${Date.now()}_${randomBytes(3).toString('hex')}`;

export const createRebuilder = ({
  orm,
  databaseUrl,
  eventStore,
  logger,
  projections = allProjections,
  batchSize = DEFAULT_BATCH,
  holdRowsFor = DEFAULT_HOLD_ROWS_FOR,
  onProgress,
  liveWaitMs = 30_000,
}: RebuildOptions) => {
  const tables = readModelTables(orm);
  const names = projections.map((projection) => projection.name);

  /**
   * Applies one batch to the tables of `schema`: the live runners' folds, on fresh tables. Each
   * projection writes its own tables and checkpoint in a transaction of its own, on a connection of
   * its own, so PostgreSQL works on all of them at once; a failure fails the whole rebuild.
   */
  const applyBatch = async (schema: string, writers: readonly Projection[], events: readonly RecordedEvent[], position: number) => {
    await Promise.all(
      writers.map((writer) =>
        orm.em.fork({ schema }).transactional(async (em) => {
          await writer.apply(em, events);
          await em.upsert(ProjectionCheckpoint, { name: writer.name, position });
        }),
      ),
    );
  };

  /** Hands `step` the log after `after` up to `upTo` (the head when null), page by page; the next page is read while `step` works. */
  const readLog = async (after: number, upTo: number | null, step: (events: readonly RecordedEvent[], position: number) => Promise<void>) => {
    const head = upTo ?? (await eventStore.headPosition()) ?? -1;
    let position = after;
    let events = 0;
    const read = (from: number) => eventStore.readAll({ after: from < 0 ? null : from, limit: batchSize });
    let next = read(position);
    for (;;) {
      const page = await next;
      const batch = upTo === null ? page : page.filter((event) => event.position <= upTo);
      const last = batch.at(-1);
      if (!last) break;
      const more = batch.length === page.length && page.length === batchSize;
      if (more) next = read(last.position);
      await step(batch, last.position);
      position = last.position;
      events += batch.length;
      await onProgress?.(position, Math.max(head, position));
      if (!more) break;
    }
    return { position, events };
  };

  /** Applies the log after `after` up to `upTo` (the head when null) to the tables of `schema`, batch by batch. */
  const projectInto = (schema: string, after: number, upTo: number | null) =>
    readLog(after, upTo, (events, position) => applyBatch(schema, projections, events, position));

  /** The connection that holds the locks and changes the schema; batches go through MikroORM's pool. */
  const withClient = async <T>(work: (control: pg.Client) => Promise<T>): Promise<T> => {
    const control = new pg.Client({ connectionString: databaseUrl });
    await control.connect();
    try {
      return await work(control);
    } finally {
      await control.end();
    }
  };

  /** A fresh schema with every read model rebuilt up to (about) the head of the log. */
  const build = async (control: pg.Client): Promise<{ shadow: string; position: number; events: number }> => {
    const shadow = uniqueName('rebuild');
    await createShadowTables(control, shadow, tables);
    try {
      const built = await bulkLoad({
        orm,
        control,
        schema: shadow,
        tables,
        projections,
        holdRowsFor,
        readLog: (step) => readLog(-1, null, step),
        applyBatch: (writers, events, position) => applyBatch(shadow, writers, events, position),
      });
      // Catch up with what was appended meanwhile, so the final step under a lock is short.
      const caughtUp = await projectInto(shadow, built.position, null);
      return { shadow, position: caughtUp.position, events: built.events + caughtUp.events };
    } catch (error) {
      await dropSchema(control, shadow);
      throw error;
    }
  };

  return {
    tables,

    /** Rebuilds into fresh tables and swaps them in; readers and live projections carry on. */
    async swap(): Promise<RebuildReport> {
      const started = performance.now();
      return withClient(async (client) => {
        const { shadow, position: built, events } = await build(client);
        const retired = uniqueName('retired');
        try {
          await client.query('begin');
          await client.query(`set local lock_timeout = '${SWAP_LOCK_TIMEOUT}'`);
          await client.query(`lock table public.${CHECKPOINTS} in access exclusive mode`);
          // No live runner is inside a batch now, and none can start one until the commit.
          const head = (await eventStore.headPosition()) ?? -1;
          const last = head > built ? await projectInto(shadow, built, head) : { position: built, events: 0 };
          // Projections this rebuild does not know keep their place.
          await client.query(
            `insert into ${quoteIdentifier(shadow)}.${CHECKPOINTS} select * from public.${CHECKPOINTS} where name <> all($1) on conflict do nothing`,
            [names],
          );
          await client.query(`create schema ${quoteIdentifier(retired)}`);
          await moveTables(client, tables, 'public', retired);
          await moveTables(client, tables, shadow, 'public');
          await client.query('commit');
          logger.info({ position: last.position, tables }, 'rebuilt read models swapped in');
          return { position: last.position, events: events + last.events, seconds: (performance.now() - started) / 1000, tables };
        } catch (error) {
          await client.query('rollback').catch(() => {});
          throw error;
        } finally {
          await dropSchema(client, retired);
          await dropSchema(client, shadow);
        }
      });
    },

    /**
     * Rebuilds into fresh tables and compares them with the live ones at one position: the live
     * projections (running in this or another process) are waited for until they stand where the
     * rebuild stands, and held there by a lock on their checkpoints while the tables are compared.
     */
    async verify(): Promise<RebuildVerifyReport> {
      const started = performance.now();
      return withClient(async (client) => {
        const { shadow, position: built, events } = await build(client);
        let position = built;
        let applied = events;
        const deadline = Date.now() + liveWaitMs;
        try {
          for (;;) {
            await client.query('begin');
            // Blocks live runners (they lock their checkpoint row first) but not readers.
            await client.query(`lock table public.${CHECKPOINTS} in exclusive mode`);
            const live = await client.query<{ name: string; position: string }>(`select name, position from public.${CHECKPOINTS} where name = any($1)`, [names]);
            const positions = names.map((name) => Number(live.rows.find((row) => row.name === name)?.position ?? -1));
            const livePosition = Math.min(...positions);
            if (positions.every((value) => value === livePosition) && livePosition >= position) {
              if (livePosition > position) {
                const caughtUp = await projectInto(shadow, position, livePosition);
                position = caughtUp.position;
                applied += caughtUp.events;
              }
              const differences: TableDifference[] = [];
              for (const table of tables.filter((name) => name !== CHECKPOINTS)) {
                const difference = await compareTables(client, table, 'public', shadow);
                if (difference) differences.push(difference);
              }
              await client.query('rollback');
              return { position, events: applied, seconds: (performance.now() - started) / 1000, tables, differences };
            }
            await client.query('rollback');
            if (Date.now() > deadline) {
              throw new Error(`the live projections did not reach position ${position} (they are at ${positions.join(', ')}); is the service or its projections running?`);
            }
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        } finally {
          await client.query('rollback').catch(() => {});
          await dropSchema(client, shadow);
        }
      });
    },
  };
};
