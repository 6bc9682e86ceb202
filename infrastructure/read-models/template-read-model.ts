import type { FilterQuery, MikroORM } from '@mikro-orm/postgresql';
import type { TemplateReadModel, TemplateView } from '../../application/ports/read-models.js';
import type { Editor, OutputFormat } from '../../domain/templates/template-settings.js';
import { TemplateRow } from './entities.js';

const toView = (row: TemplateRow): TemplateView => ({
  id: row.id,
  orgId: row.orgId,
  name: row.name,
  width: row.width,
  height: row.height,
  quality: row.quality,
  scaleFactor: Number(row.scaleFactor),
  tags: row.tags,
  createdBy: row.createdBy,
  mergeFields: row.mergeFields,
  revision: row.revision,
  version: row.version,
  publishedVersion: row.publishedVersion ?? null,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  editor: row.editor as Editor,
  outputFormat: row.outputFormat as OutputFormat,
  recordDuration: row.recordDuration ?? null,
  fps: row.fps ?? null,
  sourceTemplateId: row.sourceTemplateId ?? null,
  preview: row.preview ?? null,
  html: row.html ?? null,
  css: row.css ?? null,
  sampleData: row.sampleData ?? null,
  components: row.components ?? null,
  properties: row.properties ?? [],
});

/** LIKE treats % and _ as wildcards; a name filter means the literal text. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

export const createTemplateReadModel = (orm: MikroORM): TemplateReadModel => ({
  async get(orgId, templateId) {
    const row = await orm.em.fork().findOne(TemplateRow, { id: templateId, orgId, deleted: false });
    return row ? toView(row) : null;
  },
  async list(orgId, filter) {
    const where: FilterQuery<TemplateRow> = { orgId, deleted: false };
    if (filter.name) where.name = { $ilike: `%${escapeLike(filter.name)}%` };
    if (filter.tags && filter.tags.length > 0) where.tags = { $contains: [...filter.tags] };
    if (filter.sourceTemplateId) where.sourceTemplateId = filter.sourceTemplateId;
    const rows = await orm.em.fork().find(TemplateRow, where, {
      orderBy: { createdAt: 'desc', id: 'desc' },
      limit: filter.size,
      offset: filter.page * filter.size,
    });
    return rows.map(toView);
  },
});
