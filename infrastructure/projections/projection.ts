import type { EntityManager } from '@mikro-orm/postgresql';
import type { DomainEvent, RecordedEvent } from '../../domain/shared/events.js';
import type { DocumentProjection } from './document-projection.js';

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
   * The pure folds `apply` runs, when it has them: a rebuild then folds the whole log in memory
   * and writes each table once, instead of applying batch after batch to the tables.
   */
  readonly document?: DocumentProjection<DomainEvent>;
}
