import type { EntityManager } from '@mikro-orm/postgresql';
import type { RecordedEvent } from '../../domain/shared/events.js';

/** Turns events into read-model rows. `apply` runs inside the runner's transaction, beside the checkpoint write. */
export interface Projection {
  readonly name: string;
  /**
   * Whether `apply` may change anything for this event; without it, every event may. A batch of
   * events none of which the projection handles costs its runner no transaction.
   */
  handles?(event: RecordedEvent): boolean;
  apply(em: EntityManager, event: RecordedEvent): Promise<void>;
}
