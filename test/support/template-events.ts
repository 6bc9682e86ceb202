import type { TemplateCreated } from '../../domain/templates/template-events.js';

/** A TemplateCreated as CreateTemplate records it with the spec's defaults (a 1200x630 html-editor card), for seeding templates. */
export const templateCreated = (data: Pick<TemplateCreated['data'], 'templateId' | 'orgId' | 'createdAt'> & Partial<TemplateCreated['data']>): TemplateCreated => ({
  type: 'TemplateCreated',
  data: {
    name: 'Card',
    editor: 'html-editor',
    width: 1200,
    height: 630,
    outputFormat: 'jpeg',
    quality: 80,
    scaleFactor: 1,
    recordDuration: null,
    fps: null,
    tags: [],
    createdBy: 'API',
    sourceTemplateId: null,
    ...data,
  },
});
