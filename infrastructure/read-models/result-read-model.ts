import type { FilterQuery, MikroORM } from '@mikro-orm/postgresql';
import type { ResultReadModel, ResultView } from '../../application/ports/read-models.js';
import { ResultRow } from './entities.js';

const toView = (row: ResultRow): ResultView => ({
  requestId: row.requestId,
  orgId: row.orgId,
  kind: row.kind as ResultView['kind'],
  templateId: row.templateId,
  templateName: row.templateName,
  url: row.url ?? null,
  status: row.status as ResultView['status'],
  format: row.format,
  width: row.width ?? null,
  height: row.height ?? null,
  expiresAt: row.expiresAt ?? null,
  storageKey: row.storageKey ?? null,
  fileName: row.fileName,
  contentType: row.contentType ?? null,
  bytes: row.bytes ?? null,
  cached: row.cached,
  cacheKey: row.cacheKey ?? null,
  batchName: row.batchName ?? null,
  metadata: row.metadata ?? null,
  request: row.request,
  failureReason: row.failureReason ?? null,
  credits: row.credits,
  createdAt: row.createdAt,
  completedAt: row.completedAt ?? null,
  framesDone: row.framesDone ?? null,
  framesTotal: row.framesTotal ?? null,
  webhook: row.webhook ?? null,
});

export const createResultReadModel = (orm: MikroORM): ResultReadModel => ({
  async get(orgId, requestId) {
    const row = await orm.em.fork().findOne(ResultRow, { requestId, orgId, deleted: false });
    return row ? toView(row) : null;
  },
  async list(orgId, filter) {
    const where: FilterQuery<ResultRow> = { orgId, deleted: false };
    if (filter.templateId !== undefined) where.templateId = filter.templateId;
    if (filter.batchName !== undefined) where.batchName = filter.batchName;
    const [rows, total] = await orm.em.fork().findAndCount(ResultRow, where, {
      orderBy: { createdAt: 'desc', requestId: 'desc' },
      limit: filter.size,
      offset: filter.page * filter.size,
    });
    return { items: rows.map(toView), total };
  },
  async slice(orgId, { offset, limit }) {
    const rows = await orm.em.fork().find(ResultRow, { orgId, deleted: false }, { orderBy: { createdAt: 'desc', requestId: 'desc' }, limit, offset });
    return rows.map(toView);
  },
  async findCached(orgId, cacheKey) {
    const row = await orm.em.fork().findOne(
      ResultRow,
      { orgId, cacheKey, status: 'done', deleted: false, fileDeleted: false },
      { orderBy: { createdAt: 'desc', requestId: 'desc' } },
    );
    return row ? toView(row) : null;
  },
});
