import type { EventEnvelope, RecordedEvent } from '../../domain/shared/events.js';
import { accountEventSchemas } from './account-event-schemas.js';
import { batchEventSchemas } from './batch-event-schemas.js';
import { ledgerEventSchemas } from './ledger-event-schemas.js';
import { renderEventSchemas } from './render-event-schemas.js';
import { templateEventSchemas } from './template-event-schemas.js';
import type { VersionedEventSchema } from './versioned-event-schema.js';

/** What the event store adapters need of the schemas: a check on the way in, an upcast on the way out. */
export interface EventSchemaRegistry {
  /**
   * The event with its data checked against its type's current schema and that version stamped
   * into `metadata.schemaVersion`. Throws for an unknown type or data that does not fit: writing
   * it would poison every later reader.
   */
  prepare(event: EventEnvelope): EventEnvelope;
  /** The event brought to its type's current version; current versions and unknown types pass unchanged. */
  upcast<E extends RecordedEvent>(event: E): E;
}

export class EventSchemaViolation extends Error {
  readonly eventType: string;
  readonly problems: readonly string[];

  constructor(eventType: string, problems: readonly string[]) {
    super(`event ${eventType} does not match its schema: ${problems.join('; ')}`);
    this.name = 'EventSchemaViolation';
    this.eventType = eventType;
    this.problems = problems;
  }
}

type AnySchemas = Readonly<Record<string, VersionedEventSchema<object>>>;

export const createEventSchemaRegistry = (...maps: readonly AnySchemas[]): EventSchemaRegistry => {
  const schemas = new Map<string, VersionedEventSchema<object>>();
  for (const map of maps) {
    for (const [type, schema] of Object.entries(map)) {
      if (schemas.has(type)) throw new Error(`two schemas for event type ${type}`);
      schemas.set(type, schema);
    }
  }

  return {
    prepare(event) {
      const schema = schemas.get(event.type);
      if (!schema) throw new EventSchemaViolation(event.type, ['no schema is registered for this event type']);
      const checked = schema.schema.safeParse(event.data);
      if (!checked.success) {
        throw new EventSchemaViolation(
          event.type,
          checked.error.issues.map((issue) => `${['data', ...issue.path.map(String)].join('.')}: ${issue.message}`),
        );
      }
      // The data is stored as given, not as parsed: parsing would drop fields the schema does not name.
      return { ...event, metadata: { ...event.metadata, schemaVersion: schema.version } } as EventEnvelope;
    },
    upcast(event) {
      const schema = schemas.get(event.type);
      // Events written before versions were stamped count as version 1.
      const stored = event.metadata.schemaVersion ?? 1;
      if (!schema || stored >= schema.version) return event;
      let data = event.data as Record<string, unknown>;
      for (let version = stored; version < schema.version; version++) {
        const upcaster = schema.upcasters[version - 1];
        if (upcaster) data = upcaster(data);
      }
      return { ...event, data, metadata: { ...event.metadata, schemaVersion: schema.version } };
    },
  };
};

/** Every event type of the service. */
export const eventSchemaRegistry: EventSchemaRegistry = createEventSchemaRegistry(templateEventSchemas, accountEventSchemas, ledgerEventSchemas, renderEventSchemas, batchEventSchemas);
