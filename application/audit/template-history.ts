import type { RecordedEvent } from '../../domain/shared/events.js';
import type { TemplateEvent } from '../../domain/templates/template-events.js';
import { evolveTemplate, initialTemplate, type Template } from '../../domain/templates/template.js';

type ActiveTemplate = Extract<Template, { status: 'active' }>;

/** A template exactly as it stood at one moment, folded from its stream: what a render then used. */
export interface TemplateSnapshot {
  readonly templateId: string;
  readonly orgId: string;
  /** The moment asked about. */
  readonly at: string;
  /** Stream revision of the last change at or before `at`; renders record the revision they used. */
  readonly revision: number;
  readonly changedAt: string;
  /** Deleted templates show what they were when deleted. */
  readonly deletedAt: string | null;
  readonly settings: ActiveTemplate['fields'];
  readonly content: ActiveTemplate['content'];
  /** The component document of canvas templates. */
  readonly components: unknown;
  /** What render data can set: canvas component properties, or the html template's merge fields. */
  readonly properties: readonly unknown[];
}

const propertiesOf = (state: ActiveTemplate, lastComponentProperties: readonly unknown[] | null): readonly unknown[] => {
  if (lastComponentProperties) return lastComponentProperties;
  const content = state.content;
  return content ? content.mergeFields.map((key) => ({ key, type: 'text', defaultValue: content.sampleData[key] ?? null })) : [];
};

/** Null when the template did not exist yet at `at`. */
export const templateAsOf = (events: readonly RecordedEvent<TemplateEvent>[], at: Date): TemplateSnapshot | null => {
  let state = initialTemplate();
  let active: ActiveTemplate | null = null;
  let last: RecordedEvent | null = null;
  let deletedAt: string | null = null;
  let componentProperties: readonly unknown[] | null = null;
  for (const event of events) {
    if (Date.parse(event.metadata.occurredAt) > at.getTime()) break;
    state = evolveTemplate(state, event);
    last = event;
    if (event.type === 'TemplateComponentsReplaced') componentProperties = event.data.properties;
    if (event.type === 'TemplateDeleted') deletedAt = event.data.deletedAt;
    if (state.status === 'active') active = state;
  }
  if (!active || !last) return null;
  return {
    templateId: active.fields.templateId,
    orgId: active.fields.orgId,
    at: at.toISOString(),
    revision: last.revision,
    changedAt: last.metadata.occurredAt,
    deletedAt,
    settings: active.fields,
    content: active.content,
    components: 'components' in active ? (active.components ?? null) : null,
    properties: propertiesOf(active, componentProperties),
  };
};
