import type { MikroORM } from '@mikro-orm/postgresql';
import type { BatchReadModel, BatchRowResult, BatchView } from '../../application/ports/read-models.js';
import { BatchRow } from './entities.js';

const toView = (row: BatchRow): BatchView => ({
  id: row.id,
  orgId: row.orgId,
  name: row.name,
  templateId: row.templateId,
  templateVersion: row.templateVersion ?? null,
  outputFormat: row.outputFormat,
  total: row.total,
  credits: row.credits,
  merge: row.merge,
  webhookUrl: row.webhookUrl ?? null,
  rowsStorageKey: row.rowsStorageKey,
  status: row.status as BatchView['status'],
  createdAt: row.createdAt,
  cancelledAt: row.cancelledAt ?? null,
  endedAt: row.endedAt ?? null,
  ended:
    row.status === 'ended'
      ? { done: row.done ?? 0, failed: row.failed ?? 0, cached: row.cached ?? 0, skipped: row.skipped ?? 0, creditsCharged: row.creditsCharged ?? 0 }
      : null,
  mergedStorageKey: row.mergedStorageKey ?? null,
});

interface RowResultRecord {
  readonly request_id: string;
  readonly status: BatchRowResult['status'];
  readonly cached: boolean;
  readonly credits: number;
  readonly failure_reason: string | null;
  readonly storage_key: string | null;
  readonly content_type: string | null;
  readonly file_deleted: boolean;
  readonly created_at: Date | string;
}

export const createBatchReadModel = (orm: MikroORM): BatchReadModel => ({
  async get(orgId, batchId) {
    const row = await orm.em.fork().findOne(BatchRow, { id: batchId, orgId });
    return row ? toView(row) : null;
  },
  async list(orgId, { page, size }) {
    const [rows, total] = await orm.em.fork().findAndCount(BatchRow, { orgId }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: size, offset: page * size });
    return { items: rows.map(toView), total };
  },
  async findByName(orgId, name) {
    const row = await orm.em.fork().findOne(BatchRow, { orgId, name });
    return row ? toView(row) : null;
  },
  async unended(before, limit) {
    const rows = await orm.em.fork().find(BatchRow, { status: 'pending', createdAt: { $lt: before } }, { fields: ['id', 'orgId'], orderBy: { createdAt: 'asc' }, limit });
    return rows.map((row) => ({ batchId: row.id, orgId: row.orgId }));
  },
  async rowResults(orgId, requestIds) {
    if (requestIds.length === 0) return new Map();
    const records: RowResultRecord[] = await orm.em.getConnection().execute<RowResultRecord[]>(
      `select request_id, status, cached, credits, failure_reason, storage_key, content_type, file_deleted, created_at from results
       where org_id = ? and request_id in (select jsonb_array_elements_text(?::jsonb)) and not deleted`,
      // One parameter however many ids: the driver would otherwise spread an array into a list.
      [orgId, JSON.stringify(requestIds)],
    );
    return new Map(
      records.map((record) => [
        record.request_id,
        {
          requestId: record.request_id,
          status: record.status,
          cached: record.cached,
          credits: record.credits,
          failureReason: record.failure_reason,
          storageKey: record.file_deleted ? null : record.storage_key,
          contentType: record.content_type,
          createdAt: new Date(record.created_at),
        },
      ]),
    );
  },
});
