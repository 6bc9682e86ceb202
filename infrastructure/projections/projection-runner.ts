import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { EventStore, Subscription } from '../../application/ports/event-store.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import { ProjectionCheckpoint } from '../read-models/entities.js';
import type { TableChanges } from './document-projection.js';
import { CHECKPOINTS, type ApplyAtCheckpoint, type Projection } from './projection.js';

/** Checkpoint value of a projection that has applied nothing yet. */
const NOTHING_APPLIED = -1;

/** How long a checkpoint's move past batches with nothing to write waits before it is written. */
const MOVE_WINDOW_MS = 250;

export interface ProjectionRunnerOptions {
  readonly orm: MikroORM;
  readonly eventStore: EventStore;
  readonly projection: Projection;
  readonly logger: Logger;
  /** Events applied per transaction while catching up. */
  readonly batchSize?: number;
  /**
   * Told of every batch once its transaction committed, whichever instance applied it: in-process
   * caches of read-model rows evict what changed, or take the rows as this runner wrote them (null
   * when it does not know them: written by the locked transaction, or by another instance).
   */
  readonly onCommitted?: (events: readonly RecordedEvent[], written: readonly TableChanges[] | null) => void;
}

export interface ProjectionRunner {
  readonly name: string;
  /** Catches up with the whole log, then follows it live; resolves once caught up. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Last position applied (by this or any other runner of the same projection). */
  position(): number;
  isLive(): boolean;
  /** Resolves once `position` was applied; false after `timeoutMs`. */
  waitFor(position: number, timeoutMs: number): Promise<boolean>;
}

/**
 * Runs on every batch, and a busy log of cache hits makes a batch of every hit: plain SQL through
 * MikroORM's Kysely, not an entity query the ORM builds each time.
 *
 * Locks the checkpoint row and moves it forward to `position` in one statement, answering where it
 * stood before: events at or below that were applied already (by this runner or another instance's).
 * The lock is taken by the select, which waits for a runner elsewhere to commit and then reads its
 * checkpoint; the move is part of the caller's transaction, so it commits with the rows or not at all.
 */
const lockAndAdvanceCheckpoint = async (em: EntityManager, name: string, position: number): Promise<number> => {
  const { rows } = await sql<{ before: string }>`
    with before as (select position from ${CHECKPOINTS} where name = ${name} for update)
    update ${CHECKPOINTS} as checkpoint set position = greatest(checkpoint.position, ${position}) from before
    where checkpoint.name = ${name} returning before.position as before`.execute(em.getKysely());
  const before = rows[0]?.before;
  if (before === undefined) throw new Error(`projection ${name} has no checkpoint row`);
  return Number(before);
};

export const createProjectionRunner = ({
  orm,
  eventStore,
  projection,
  logger,
  batchSize = 500,
  onCommitted,
}: ProjectionRunnerOptions): ProjectionRunner => {
  const log = logger.child({ projection: projection.name });
  /** Applied as far as readers are concerned: the events after the table's checkpoint, if any, are of no concern to this projection. */
  let applied = NOTHING_APPLIED;
  /** Where this runner last left its checkpoint in the table. */
  let leftAt = NOTHING_APPLIED;
  let live = false;
  let subscription: Subscription | null = null;
  let applyAtCheckpoint: ApplyAtCheckpoint | undefined;
  const waiters = new Set<{ position: number; resolve: (reached: boolean) => void }>();
  /** Where the checkpoint stands past batches with nothing to write, until that move is written. */
  let unwrittenMove: number | null = null;
  let moveTimer: NodeJS.Timeout | undefined;
  /** Batches and the writes of moves take turns: a move written while a batch writes its own could take the checkpoint back. */
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const next = turn.then(work);
    turn = next.catch(() => undefined);
    return next;
  };

  const concerns = (event: RecordedEvent) => projection.handles?.(event) ?? true;

  const advanceTo = (position: number) => {
    applied = Math.max(applied, position);
    for (const waiter of waiters) {
      if (waiter.position <= applied) {
        waiters.delete(waiter);
        waiter.resolve(true);
      }
    }
  };

  /**
   * Applies events and moves the checkpoint in one transaction. The checkpoint row is locked first,
   * so two runners of the same projection (two service instances) serialize and neither applies an
   * event twice: events at or below the locked checkpoint are skipped.
   */
  const applyLocked = (events: readonly RecordedEvent[], last: number) =>
    orm.em.fork().transactional(async (em) => {
      const before = await lockAndAdvanceCheckpoint(em, projection.name, last);
      const unapplied = events.filter((event) => event.position > before);
      if (unapplied.length > 0) await projection.apply(em, unapplied);
      return Math.max(before, last);
    });

  /**
   * The common case, where this runner is the one that moves its checkpoint: the batch's rows are
   * folded from what its last batches left (or read as they stand) and written in one statement with
   * the checkpoint's move, which takes effect only if the checkpoint is still where this runner left
   * it. One round trip, or two or three, instead of the transaction's five to seven, on the path of
   * every answer that waits for the read models. When another instance moved it meanwhile, nothing
   * was written, and the locked transaction decides.
   */
  const applyWhereLeft = async (events: readonly RecordedEvent[], last: number): Promise<readonly TableChanges[] | null> => {
    if (!applyAtCheckpoint) return null;
    const unapplied = events.filter((event) => event.position > applied);
    return applyAtCheckpoint(orm.em.fork(), unapplied, { name: projection.name, from: leftAt, to: last });
  };

  /**
   * Writes the checkpoint's move past batches with nothing to write: a busy log of cache hits is such
   * a batch for every projection but the results', many times a second, and where the checkpoint
   * stands in memory is what readers wait for, so the move waits a moment and is written once for
   * all of them. Forward only: a runner elsewhere that applied further keeps its place. If the process
   * dies first, those events are read again at the next start, and change nothing.
   */
  const writeMove = async () => {
    clearTimeout(moveTimer);
    moveTimer = undefined;
    const to = unwrittenMove;
    unwrittenMove = null;
    if (to === null) return;
    try {
      await sql`update ${CHECKPOINTS} set position = ${to} where name = ${projection.name} and position < ${to}`.execute(orm.em.getKysely());
      leftAt = Math.max(leftAt, to);
    } catch (error) {
      log.warn({ err: error, position: to }, 'checkpoint move not written; those events will be read again');
    }
  };

  const applyBatch = async (events: readonly RecordedEvent[]) => {
    const last = events.at(-1);
    // A batch the locked path found applied already (another instance moved the checkpoint past it
    // while this runner's subscription was still on its way there) is passed over: written where this
    // runner left the checkpoint, its move would take the checkpoint back to the batch's end.
    if (!last || last.position <= applied) return;
    if (!events.some(concerns)) {
      unwrittenMove = last.position;
      moveTimer ??= setTimeout(() => void inTurn(writeMove), MOVE_WINDOW_MS).unref();
      advanceTo(last.position);
      return;
    }
    // The batch moves the checkpoint itself, past any move not yet written.
    clearTimeout(moveTimer);
    moveTimer = undefined;
    unwrittenMove = null;
    const written = await applyWhereLeft(events, last.position);
    const reached = written ? last.position : await applyLocked(events, last.position);
    leftAt = reached;
    onCommitted?.(events, written);
    advanceTo(reached);
  };

  const loadCheckpoint = async (): Promise<number> => {
    const em = orm.em.fork();
    await em.upsert(ProjectionCheckpoint, { name: projection.name, position: NOTHING_APPLIED }, { onConflictAction: 'ignore' });
    const row = await em.findOneOrFail(ProjectionCheckpoint, { name: projection.name }, { refresh: true });
    return row.position;
  };

  const fromPosition = () => (applied === NOTHING_APPLIED ? null : applied);

  const catchUp = async () => {
    for (;;) {
      const page = await eventStore.readAll({ after: fromPosition(), limit: batchSize });
      if (page.length === 0) return;
      await inTurn(() => applyBatch(page));
    }
  };

  let stopped = false;
  let retryTimer: NodeJS.Timeout | undefined;

  /**
   * Where to go on from after a failure: the table's checkpoint, which may stand behind what this
   * runner applied. Read models commit without waiting for the disk, so a database that crashed
   * and came back has lost its last commits, acknowledged as they were; they are applied again,
   * with rows held afresh. In turn with the writes of moves, so none lands after it.
   */
  const reloadCheckpoint = async () => {
    const stored = await loadCheckpoint();
    if (stored < applied) log.warn({ checkpoint: stored, applied }, 'the read model lost its last commits (the database restarted); applying them again');
    applyAtCheckpoint = projection.applierAtCheckpoint?.();
    // A move not yet written may be past commits the database lost: it waits for those to be applied again.
    clearTimeout(moveTimer);
    moveTimer = undefined;
    unwrittenMove = null;
    leftAt = stored;
    applied = stored;
  };

  /** After a failure: waits (backing off), reloads the checkpoint, then follows the log again; a database still down is waited for again. */
  const resume = (attempt: number, error: unknown) => {
    const delay = Math.min(30_000, 250 * 2 ** attempt);
    log.error({ err: error, retryInMs: delay }, 'projection subscription ended; resubscribing from the checkpoint');
    retryTimer = setTimeout(() => {
      void inTurn(reloadCheckpoint).then(
        () => {
          if (!stopped) follow(attempt + 1);
        },
        (reloadError: unknown) => {
          if (!stopped) resume(attempt + 1, reloadError);
        },
      );
    }, delay);
  };

  /**
   * Follows the log live. A failed batch (a deadlock, a dropped connection) ends the subscription;
   * the runner then resubscribes from its checkpoint with backoff, so one bad moment never stops
   * the read models for good, and nothing is skipped because the checkpoint did not move.
   */
  const follow = (attempt = 0) => {
    // Whatever arrived since the last delivery is applied in one transaction: a busy log costs
    // one commit per batch, not one per event and projection.
    const current = eventStore.subscribeToAll(fromPosition(), async (events) => {
      await inTurn(() => applyBatch(events));
      attempt = 0;
    });
    subscription = current;
    live = true;
    const resubscribe = (error?: unknown) => {
      if (stopped || subscription !== current) return;
      live = false;
      void current.stop().finally(() => {
        if (!stopped) resume(attempt, error);
      });
    };
    current.done.then(() => resubscribe(), resubscribe);
  };

  return {
    name: projection.name,
    async start() {
      stopped = false;
      // Made afresh at each start: rows held before a stop may have changed meanwhile.
      applyAtCheckpoint = projection.applierAtCheckpoint?.();
      leftAt = await loadCheckpoint();
      advanceTo(leftAt);
      await catchUp();
      follow();
      log.info({ position: applied }, 'projection caught up');
    },
    async stop() {
      stopped = true;
      clearTimeout(retryTimer);
      live = false;
      await subscription?.stop();
      subscription = null;
      // Its progress past events of no concern is kept for the next start.
      await inTurn(writeMove);
      for (const waiter of waiters) waiter.resolve(false);
      waiters.clear();
    },
    position: () => applied,
    isLive: () => live,
    waitFor(position, timeoutMs) {
      if (position <= applied) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const waiter = {
          position,
          resolve: (reached: boolean) => {
            clearTimeout(timer);
            resolve(reached);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          resolve(false);
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
  };
};
