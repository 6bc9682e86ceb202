import { notFound } from '../../domain/shared/errors.js';
import { deriveProperties } from '../../domain/templates/components/template-properties.js';
import { templateDecider } from '../../domain/templates/template-decider.js';
import { templateStream } from '../../domain/templates/template-events.js';
import type { ActiveTemplate, TemplateVersion } from '../../domain/templates/template.js';
import type { EventStore } from '../ports/event-store.js';
import type { TemplateView } from '../ports/read-models.js';
import { readEvents } from '../shared/stream-reads.js';

/** A version with the stream revision of the change that made it: a render pins that revision to draw it. */
export interface RecordedTemplateVersion extends TemplateVersion {
  readonly revision: number;
}

export interface TemplateVersions {
  readonly template: ActiveTemplate;
  /** Oldest first: version n is at index n - 1. */
  readonly versions: readonly RecordedTemplateVersion[];
}

/**
 * The organization's template and every version of it, folded from its stream (the read model keeps
 * only the latest). Another organization's template is missing, exactly like a deleted one.
 */
export const readTemplateVersions = async (eventStore: EventStore, orgId: string, templateId: string): Promise<TemplateVersions> => {
  let state = templateDecider.initialState();
  const versions: RecordedTemplateVersion[] = [];
  for (const event of await readEvents(eventStore, templateStream(templateId), templateDecider.isEvent)) {
    state = templateDecider.evolve(state, event);
    const latest = state.status === 'active' ? state.versions[state.versions.length - 1] : undefined;
    if (latest && latest.version > versions.length) versions.push({ ...latest, revision: event.revision });
  }
  if (state.status !== 'active' || state.fields.orgId !== orgId) throw notFound('Template');
  return { template: state, versions };
};

/** One version seen as the read model shows a template, so whatever takes a template (renders, DTOs) takes it. */
export const viewOfVersion = (template: ActiveTemplate, version: RecordedTemplateVersion): TemplateView => {
  const { fields, content, components } = version;
  return {
    id: fields.templateId,
    orgId: fields.orgId,
    name: fields.name,
    editor: fields.editor,
    width: fields.width,
    height: fields.height,
    outputFormat: fields.outputFormat,
    quality: fields.quality,
    scaleFactor: fields.scaleFactor,
    recordDuration: fields.recordDuration,
    fps: fields.fps,
    tags: fields.tags,
    createdBy: fields.createdBy,
    sourceTemplateId: fields.sourceTemplateId,
    // A preview image belongs to the template as it is now, not to any version of it.
    preview: null,
    html: content?.html ?? null,
    css: content?.css ?? null,
    sampleData: content?.sampleData ?? null,
    mergeFields: content?.mergeFields ?? [],
    components,
    properties: components ? deriveProperties(components) : [],
    revision: version.revision,
    version: version.version,
    publishedVersion: template.publishedVersion,
    createdAt: new Date(fields.createdAt),
    updatedAt: new Date(fields.updatedAt),
  };
};
