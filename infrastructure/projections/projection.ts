import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { DomainEvent, RecordedEvent } from '../../domain/shared/events.js';
import type { DocumentProjection, TableChanges } from './document-projection.js';

export const CHECKPOINTS = sql.table('projection_checkpoints');

/** A checkpoint moved from where a runner left it to a batch's last position. */
export interface CheckpointMove {
  readonly name: string;
  readonly from: number;
  readonly to: number;
}

/**
 * Applies a batch where the runner left its checkpoint and moves it, answering the rows it wrote, or
 * writes nothing and answers null (see Projection).
 */
export type ApplyAtCheckpoint = (em: EntityManager, events: readonly RecordedEvent[], move: CheckpointMove) => Promise<readonly TableChanges[] | null>;

/**
 * What a projection runner runs: a batch of events applied inside the runner's transaction, beside
 * the checkpoint write (emmett's `handle(events, context)`). The read models are document
 * projections (document-projection.ts) turned into one of these by `documentStore`; tests use the
 * hook directly to watch what the runner does.
 */
export interface Projection {
  readonly name: string;
  /**
   * Whether `apply` may change anything for this event; without it, every event may. A batch of
   * events none of which the projection handles costs its runner no transaction.
   */
  handles?(event: RecordedEvent): boolean;
  apply(em: EntityManager, events: readonly RecordedEvent[]): Promise<void>;
  /**
   * A runner's own way to apply a batch outside any transaction, reading rows as they stand (or as
   * its earlier batches left them), and to move the checkpoint from `move.from` to `move.to` in the
   * same statement as the writes, which takes effect only if the checkpoint still stands at `from`;
   * null when it had moved (and nothing was written). One per runner: it may hold rows between batches.
   */
  applierAtCheckpoint?(): ApplyAtCheckpoint;
  /**
   * The pure folds `apply` runs, when it has them: a rebuild then folds the whole log in memory
   * and writes each table once, instead of applying batch after batch to the tables.
   */
  readonly document?: DocumentProjection<DomainEvent>;
}
