import type { MikroORM } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { Logger } from 'pino';

export const CHECKPOINTS = sql.table('projection_checkpoints');

/** How long the moves of batches with nothing to write are gathered before they are written. */
const MOVE_WINDOW_MS = 250;

/**
 * Checkpoint moves past batches a projection has nothing to write for: a busy log of cache hits
 * is such a batch for every projection but the results', many times a second. Such a move need
 * not be written at once, nor on its own: where a checkpoint stands in memory is what readers wait
 * for, and the rows are the same whichever of those positions the table's checkpoint says. So the
 * moves of all runners of a process are gathered for up to `windowMs` and written in one statement.
 * A move only ever goes forward: a runner elsewhere that applied further keeps its place. If the
 * process dies first, its runners read those events again at the next start and write nothing.
 */
export interface CheckpointMoves {
  /** Moves `name`'s checkpoint forward to `position` with the next write of the gathered moves. */
  later(name: string, position: number): void;
  /**
   * Before a runner writes its checkpoint itself (with its rows): its move not yet written is
   * dropped, and one being written is waited for. Answers the position that such a move wrote.
   */
  settle(name: string): Promise<number | null>;
  /** Writes the moves gathered so far, for a runner that stops. */
  flush(): Promise<void>;
}

interface Write {
  readonly moves: ReadonlyMap<string, number>;
  /** True once the statement committed, false if it failed. */
  readonly done: Promise<boolean>;
}

export const createCheckpointMoves = (orm: MikroORM, logger?: Logger, windowMs = MOVE_WINDOW_MS): CheckpointMoves => {
  let gathered = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  const writing = new Set<Write>();

  const statement = async (moves: ReadonlyMap<string, number>) => {
    await sql`update ${CHECKPOINTS} as checkpoint set position = moved.position
      from unnest(${[...moves.keys()]}::text[], ${[...moves.values()]}::bigint[]) as moved(name, position)
      where checkpoint.name = moved.name and checkpoint.position < moved.position`.execute(orm.em.getKysely());
  };

  const writeGathered = async () => {
    clearTimeout(timer);
    timer = undefined;
    if (gathered.size === 0) return;
    const moves = gathered;
    gathered = new Map();
    const write: Write = {
      moves,
      done: statement(moves).then(
        () => true,
        (error: unknown) => {
          // Only progress past events of no concern is lost: they are read again, and change nothing.
          logger?.warn({ err: error, moves: Object.fromEntries(moves) }, 'checkpoint moves not written; those events will be read again');
          return false;
        },
      ),
    };
    writing.add(write);
    await write.done;
    writing.delete(write);
  };

  return {
    later(name, position) {
      gathered.set(name, Math.max(gathered.get(name) ?? position, position));
      timer ??= setTimeout(() => void writeGathered(), windowMs).unref();
    },
    async settle(name) {
      gathered.delete(name);
      let written: number | null = null;
      for (const write of [...writing]) {
        const position = write.moves.get(name);
        if (position !== undefined && (await write.done)) written = Math.max(written ?? position, position);
      }
      return written;
    },
    async flush() {
      await writeGathered();
      await Promise.all([...writing].map((write) => write.done));
    },
  };
};
