import type { RecordedEvent } from '../../domain/shared/events.js';
import { isTemplateEvent, type TemplateEvent } from '../../domain/templates/template-events.js';
import { TemplateRow } from '../read-models/entities.js';
import { fold, type DocumentProjection } from './document-projection.js';

/**
 * A template's row: every version moves the row to its stream revision, which renders of the latest
 * pin and the render cache keys on, and counts one more version; publishing only marks a version.
 */
export const evolveTemplateRow = (row: TemplateRow | null, event: RecordedEvent<TemplateEvent>): TemplateRow | null => {
  if (event.type === 'TemplateCreated') {
    const { templateId, orgId, name, editor, width, height, outputFormat, quality, scaleFactor, recordDuration, fps, tags, createdBy, sourceTemplateId, createdAt } = event.data;
    return {
      id: templateId,
      orgId,
      name,
      editor,
      width,
      height,
      outputFormat,
      quality,
      scaleFactor,
      recordDuration,
      fps,
      tags: [...tags],
      createdBy,
      sourceTemplateId,
      html: null,
      css: null,
      sampleData: null,
      mergeFields: [],
      components: null,
      properties: null,
      preview: null,
      deleted: false,
      revision: event.revision,
      version: 1,
      publishedVersion: null,
      createdAt: new Date(createdAt),
      updatedAt: new Date(createdAt),
    };
  }
  if (row === null) return null;
  const revision = event.revision;
  const version = row.version + 1;
  switch (event.type) {
    case 'TemplateUpdated': {
      const { tags, ...changes } = event.data.changes;
      return { ...row, ...changes, ...(tags ? { tags: [...tags] } : {}), revision, version, updatedAt: new Date(event.data.updatedAt) };
    }
    case 'TemplateContentReplaced': {
      const { html, css, sampleData, mergeFields, replacedAt } = event.data;
      return { ...row, html, css, sampleData, mergeFields: [...mergeFields], revision, version, updatedAt: new Date(replacedAt) };
    }
    case 'TemplateComponentsReplaced': {
      const { components, properties, replacedAt } = event.data;
      return { ...row, components, properties, revision, version, updatedAt: new Date(replacedAt) };
    }
    case 'TemplateVersionRestored': {
      const { settings, content, components, properties, restoredAt } = event.data;
      return {
        ...row,
        ...settings,
        tags: [...settings.tags],
        html: content?.html ?? null,
        css: content?.css ?? null,
        sampleData: content?.sampleData ?? null,
        mergeFields: content ? [...content.mergeFields] : [],
        components,
        properties: components ? properties : null,
        revision,
        version,
        updatedAt: new Date(restoredAt),
      };
    }
    case 'TemplatePublished':
      return { ...row, publishedVersion: event.data.version };
    case 'TemplateDeleted':
      return { ...row, deleted: true, revision, updatedAt: new Date(event.data.deletedAt) };
    default:
      return event satisfies never;
  }
};

export const templatesProjection: DocumentProjection<TemplateEvent> = {
  name: 'templates',
  canHandle: isTemplateEvent,
  folds: [
    fold<TemplateEvent, TemplateRow>({
      entity: TemplateRow,
      documents: (event) => [event.data.templateId],
      evolve: evolveTemplateRow,
    }),
  ],
};
