import type { RecordedEvent } from '../../domain/shared/events.js';
import type { TemplateEvent } from '../../domain/templates/template-events.js';
import { evolveTemplate, initialTemplate, type ActiveTemplate, type TemplateVersion } from '../../domain/templates/template.js';

/** A version in the history: when and by which change it was made, without its content (ask for the moment it was made). */
export interface VersionEntry extends Pick<TemplateVersion, 'version' | 'createdAt' | 'changed' | 'restoredFrom'> {
  /** Stream revision of the change that made it: the `template.revision` of the renders that drew it. */
  readonly revision: number;
}

/** A template exactly as it stood at one moment, folded from its stream: what a render then used. */
export interface TemplateSnapshot {
  readonly templateId: string;
  readonly orgId: string;
  /** The moment asked about. */
  readonly at: string;
  /** Stream revision of the last change at or before `at`; renders record the revision they used. */
  readonly revision: number;
  readonly changedAt: string;
  /** The version the template was at `at`, and the one renders without a version then used (null: the latest). */
  readonly version: number;
  readonly publishedVersion: number | null;
  /** Every version made up to `at`, oldest first. */
  readonly versions: readonly VersionEntry[];
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
  const versions: VersionEntry[] = [];
  for (const event of events) {
    if (Date.parse(event.metadata.occurredAt) > at.getTime()) break;
    state = evolveTemplate(state, event);
    last = event;
    const latest = state.status === 'active' ? state.versions[state.versions.length - 1] : undefined;
    if (latest && latest.version > versions.length) {
      const { version, createdAt, changed, restoredFrom } = latest;
      versions.push({ version, createdAt, changed, restoredFrom, revision: event.revision });
    }
    if (event.type === 'TemplateComponentsReplaced') componentProperties = event.data.properties;
    if (event.type === 'TemplateVersionRestored') componentProperties = event.data.components ? event.data.properties : null;
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
    version: active.versions.length,
    publishedVersion: active.publishedVersion,
    versions,
    deletedAt,
    settings: active.fields,
    content: active.content,
    components: 'components' in active ? (active.components ?? null) : null,
    properties: propertiesOf(active, componentProperties),
  };
};
