import type { MikroORM } from '@mikro-orm/postgresql';
import { sql } from 'kysely';

export const CHECKPOINTS = sql.table('projection_checkpoints');

/** Moves a projection's checkpoint forward to `position` (never back), outside any transaction. */
export type MoveCheckpoint = (name: string, position: number) => Promise<void>;

/**
 * The runners of a process read the same page of the log at the same moment, and those that handle
 * none of its events (most of them, for a page of cache hits) only move their checkpoints: the moves
 * asked for in one tick go in one statement instead of one each. A move needs no lock, since it only
 * ever goes forward: a runner elsewhere that applied further keeps its place.
 */
export const createCheckpointMoves = (orm: MikroORM): MoveCheckpoint => {
  let gathering: Map<string, number> | null = null;
  let written: Promise<void> = Promise.resolve();

  const write = async (moves: ReadonlyMap<string, number>) => {
    await sql`update ${CHECKPOINTS} as checkpoint set position = moved.position
      from unnest(${[...moves.keys()]}::text[], ${[...moves.values()]}::bigint[]) as moved(name, position)
      where checkpoint.name = moved.name and checkpoint.position < moved.position`.execute(orm.em.getKysely());
  };

  return (name, position) => {
    if (!gathering) {
      const moves = new Map<string, number>();
      gathering = moves;
      written = new Promise<void>((resolve) => queueMicrotask(resolve)).then(() => {
        gathering = null;
        return write(moves);
      });
    }
    gathering.set(name, Math.max(gathering.get(name) ?? position, position));
    return written;
  };
};
