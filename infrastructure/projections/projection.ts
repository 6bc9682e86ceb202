import type { EntityManager } from '@mikro-orm/postgresql';
import type { RecordedEvent } from '../../domain/shared/events.js';

/** Turns events into read-model rows. `apply` runs inside the runner's transaction, beside the checkpoint write. */
export interface Projection {
  readonly name: string;
  apply(em: EntityManager, event: RecordedEvent): Promise<void>;
}
