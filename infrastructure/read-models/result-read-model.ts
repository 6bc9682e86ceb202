import type { FilterQuery, MikroORM } from '@mikro-orm/postgresql';
import type { ResultReadModel, ResultView } from '../../application/ports/read-models.js';
import { ResultRow } from './entities.js';

interface CachedFileRow {
  readonly request_id: string;
  readonly data_from: string | null;
  readonly storage_key: string | null;
  readonly content_type: string | null;
  readonly bytes: string | number | null;
  readonly width: number | null;
  readonly height: number | null;
}

const toView = (row: ResultRow): ResultView => ({
  requestId: row.requestId,
  orgId: row.orgId,
  kind: row.kind as ResultView['kind'],
  templateId: row.templateId,
  templateName: row.templateName,
  templateVersion: row.templateVersion ?? null,
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
  dataFrom: row.dataFrom ?? null,
  failureReason: row.failureReason ?? null,
  credits: row.credits,
  createdAt: row.createdAt,
  completedAt: row.completedAt ?? null,
  fit: row.fit ?? null,
  test: row.test,
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
  async stalePending(before, limit) {
    const rows = await orm.em.fork().find(ResultRow, { status: 'pending', createdAt: { $lt: before } }, { fields: ['requestId', 'orgId'], orderBy: { createdAt: 'asc' }, limit });
    return rows.map((row) => ({ requestId: row.requestId, orgId: row.orgId }));
  },
  async expiredTestResults(nowSeconds, limit) {
    const rows = await orm.em
      .fork()
      .find(ResultRow, { test: true, deleted: false, status: { $ne: 'pending' }, expiresAt: { $lt: nowSeconds } }, { fields: ['requestId', 'orgId'], orderBy: { expiresAt: 'asc' }, limit });
    return rows.map((row) => ({ requestId: row.requestId, orgId: row.orgId }));
  },
  /**
   * On every repeated request, so plain SQL on the partial index that holds exactly the rows a hit
   * may reuse, newest first: one index probe, however many hits the key already had.
   */
  async findCached(orgId, cacheKey) {
    // 'get' answers the first row, or undefined when there is none.
    const row: CachedFileRow | undefined = await orm.em.getConnection().execute<CachedFileRow>(
      `select request_id, data_from, storage_key, content_type, bytes, width, height from results
       where org_id = ? and cache_key = ? and status = 'done' and not deleted and not file_deleted
       order by created_at desc, request_id desc limit 1`,
      [orgId, cacheKey],
      'get',
    );
    if (!row?.storage_key || !row.content_type || row.bytes === null) return null;
    return {
      requestId: row.request_id,
      // A hit by reference points at the request that stored the data; any other row stored it itself.
      dataFrom: row.data_from ?? row.request_id,
      storageKey: row.storage_key,
      contentType: row.content_type,
      bytes: Number(row.bytes),
      width: row.width,
      height: row.height,
    };
  },
});
