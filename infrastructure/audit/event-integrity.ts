import type { EventIntegrity } from '../../application/ports/audit.js';
import { eventSchemaRegistry, type EventSchemaRegistry } from '../event-schemas/event-schema-registry.js';
import { createChainChecker } from '../event-store/event-chain.js';

/** Hash chains and schema upcasting as the event store adapters apply them. */
export const createEventIntegrity = (schemas: EventSchemaRegistry = eventSchemaRegistry): EventIntegrity => ({
  chainChecker: createChainChecker,
  upcast: (event) => schemas.upcast(event),
});
