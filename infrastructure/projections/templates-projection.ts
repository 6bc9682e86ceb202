import type { EntityManager } from '@mikro-orm/postgresql';
import type { RecordedEvent } from '../../domain/shared/events.js';
import type { TemplateEvent } from '../../domain/templates/template-events.js';
import { TemplateRow } from '../read-models/entities.js';
import type { Projection } from './projection.js';

const isTemplateEvent = (event: RecordedEvent): event is RecordedEvent<TemplateEvent> =>
  event.streamName.startsWith('template-');

const applyTemplateEvent = async (em: EntityManager, event: RecordedEvent<TemplateEvent>) => {
  if (event.type === 'TemplateCreated') {
    const { templateId, createdAt, fps, ...fields } = event.data;
    em.create(TemplateRow, {
      ...fields,
      id: templateId,
      fps,
      tags: [...fields.tags],
      revision: event.revision,
      createdAt: new Date(createdAt),
      updatedAt: new Date(createdAt),
    });
    return;
  }
  const row = await em.findOne(TemplateRow, { id: event.data.templateId });
  if (!row) return;
  row.revision = event.revision;
  switch (event.type) {
    case 'TemplateUpdated': {
      const { tags, ...changes } = event.data.changes;
      em.assign(row, { ...changes, ...(tags ? { tags: [...tags] } : {}), updatedAt: new Date(event.data.updatedAt) });
      return;
    }
    case 'TemplateContentReplaced': {
      const { html, css, sampleData, mergeFields, replacedAt } = event.data;
      em.assign(row, { html, css, sampleData, mergeFields: [...mergeFields], updatedAt: new Date(replacedAt) });
      return;
    }
    case 'TemplateComponentsReplaced': {
      const { components, properties, replacedAt } = event.data;
      em.assign(row, { components, properties, updatedAt: new Date(replacedAt) });
      return;
    }
    case 'TemplateDeleted':
      em.assign(row, { deleted: true, updatedAt: new Date(event.data.deletedAt) });
      return;
  }
};

export const templatesProjection: Projection = {
  name: 'templates',
  handles: isTemplateEvent,
  async apply(em, event) {
    if (isTemplateEvent(event)) await applyTemplateEvent(em, event);
  },
};
