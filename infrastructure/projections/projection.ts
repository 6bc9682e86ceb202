import type { EntityManager } from '@mikro-orm/postgresql';
import type { RecordedEvent } from '../../domain/shared/events.js';

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
   * This projection for one rebuild into fresh tables, where it is their only writer and may keep
   * what it wrote in memory instead of reading it back; without it, the rebuild runs `apply`.
   */
  forFreshTables?(): Projection;
}
