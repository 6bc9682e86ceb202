import type { EntityName } from '@mikro-orm/core';
import type { EventStore } from '../../application/ports/event-store.js';
import type {
  AccountReadModel,
  AccountView,
  ApiKeyView,
  AssetReadModel,
  FontView,
  ProjectionProgress,
  ResultReadModel,
  ResultView,
  TemplateReadModel,
  TemplateView,
  UploadView,
  UrlSigningKeyReadModel,
} from '../../application/ports/read-models.js';
import type { ApiKeyScope } from '../../domain/accounts/account-events.js';
import type { FontFormat, FontStyle, ImageUploadType } from '../../domain/accounts/asset-events.js';
import type { DomainEvent } from '../../domain/shared/events.js';
import type { Editor, OutputFormat } from '../../domain/templates/template-settings.js';
import { accountsProjection } from '../../infrastructure/projections/accounts-projection.js';
import { assetsProjection } from '../../infrastructure/projections/assets-projection.js';
import type { DocumentProjection, DocumentSource } from '../../infrastructure/projections/document-projection.js';
import { foldBatch } from '../../infrastructure/projections/memory-tables.js';
import { resultsProjection } from '../../infrastructure/projections/results-projection.js';
import { templatesProjection } from '../../infrastructure/projections/templates-projection.js';
import { AccountRow, ApiKeyRow, FontRow, ResultRow, TemplateRow, UploadRow, UrlSigningKeyRow } from '../../infrastructure/read-models/entities.js';
import { toUrlSigningKeyView } from '../../infrastructure/read-models/url-signing-key-read-model.js';

/**
 * The read models of an in-memory event store, for application services' unit tests: the real
 * projections' folds (infrastructure/projections/*-projection.ts, through document-projection's
 * foldBatch, as the runners and projection specs use them) over tables in memory, and the queries of
 * the MikroORM read models (infrastructure/read-models/*-read-model.ts) redone as filters over those
 * rows. The folds are the code under test; the queries are a stand-in, kept to what the SQL says.
 *
 * The tables follow the log on their own: every query first folds what was appended since the last
 * one, so a service reads its own writes. `pause()` holds them where they are, as a projection that
 * lags behind the log, until `resume()`.
 */

const PAGE = 500;

const projections: readonly DocumentProjection<DomainEvent>[] = [
  templatesProjection as DocumentProjection<DomainEvent>,
  accountsProjection as DocumentProjection<DomainEvent>,
  resultsProjection as DocumentProjection<DomainEvent>,
  assetsProjection as DocumentProjection<DomainEvent>,
];

const matches = (row: object, where: object) => Object.entries(where).every(([column, value]) => (row as Record<string, unknown>)[column] === value);

/** Newest first, ties broken by id descending, as the SQL orders its pages. */
const newestFirst =
  <Row>(key: (row: Row) => string) =>
  (a: Row & { createdAt: Date }, b: Row & { createdAt: Date }) =>
    b.createdAt.getTime() - a.createdAt.getTime() || (key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0);

const resultView = ({ deleted: _deleted, fileDeleted: _fileDeleted, ...row }: ResultRow): ResultView => ({
  ...row,
  kind: row.kind as ResultView['kind'],
  status: row.status as ResultView['status'],
  url: row.url ?? null,
  fit: row.fit ?? null,
  test: row.test ?? false,
  templateVersion: row.templateVersion ?? null,
  width: row.width ?? null,
  height: row.height ?? null,
  expiresAt: row.expiresAt ?? null,
  storageKey: row.storageKey ?? null,
  contentType: row.contentType ?? null,
  bytes: row.bytes ?? null,
  cacheKey: row.cacheKey ?? null,
  batchName: row.batchName ?? null,
  metadata: row.metadata ?? null,
  dataFrom: row.dataFrom ?? null,
  failureReason: row.failureReason ?? null,
  completedAt: row.completedAt ?? null,
  framesDone: row.framesDone ?? null,
  framesTotal: row.framesTotal ?? null,
  webhook: row.webhook ?? null,
});

const templateView = ({ deleted: _deleted, ...row }: TemplateRow): TemplateView => ({
  ...row,
  editor: row.editor as Editor,
  outputFormat: row.outputFormat as OutputFormat,
  scaleFactor: Number(row.scaleFactor),
  recordDuration: row.recordDuration ?? null,
  fps: row.fps ?? null,
  sourceTemplateId: row.sourceTemplateId ?? null,
  preview: row.preview ?? null,
  html: row.html ?? null,
  css: row.css ?? null,
  sampleData: row.sampleData ?? null,
  components: row.components ?? null,
  properties: row.properties ?? [],
  publishedVersion: row.publishedVersion ?? null,
});

const accountView = ({ createdAt: _createdAt, ...row }: AccountRow): AccountView => row;
const keyView = (row: ApiKeyRow): ApiKeyView => ({ ...row, scopes: row.scopes as ApiKeyScope[] });
const fontView = (row: FontRow): FontView => ({ ...row, style: row.style as FontStyle, format: row.format as FontFormat });
const uploadView = (row: UploadRow): UploadView => ({ ...row, contentType: row.contentType as ImageUploadType });

export interface InMemoryReadModels {
  readonly templates: TemplateReadModel;
  readonly results: ResultReadModel;
  readonly accounts: AccountReadModel;
  readonly assets: AssetReadModel;
  readonly signingKeys: UrlSigningKeyReadModel;
  /** Waits as the projection set does: true once the tables passed `position`, false while they are paused short of it. */
  readonly progress: ProjectionProgress;
  /** Folds everything appended so far, even while paused. */
  catchUp(): Promise<void>;
  /** Holds the tables where they are, as a lagging projection would, until `resume()` or `catchUp()`. */
  pause(): void;
  resume(): void;
  /** Every row of a table as the folds left it, deleted rows included: for a test's own checks. */
  rows<Row extends object>(entity: EntityName<Row>): Row[];
}

export const createInMemoryReadModels = (eventStore: EventStore): InMemoryReadModels => {
  const tables = new Map<EntityName<object>, Map<string, object>>();
  const table = <Row extends object>(entity: EntityName<Row>): Map<string, Row> => {
    const found = tables.get(entity as EntityName<object>) ?? new Map<string, object>();
    tables.set(entity as EntityName<object>, found);
    return found as Map<string, Row>;
  };
  const source: DocumentSource = {
    load: async (entity, ids) => new Map(ids.flatMap((id) => (table(entity).has(id) ? [[id, table(entity).get(id) as object] as const] : []))),
    find: async (entity, wheres) => new Map([...table(entity)].filter(([, row]) => wheres.some((where) => matches(row, where)))),
  };

  let checkpoint = 0;
  let paused = false;
  let folding: Promise<void> = Promise.resolve();

  const foldNew = async () => {
    for (;;) {
      const page = await eventStore.readAll({ after: checkpoint, limit: PAGE });
      if (page.length === 0) return;
      for (const projection of projections) {
        for (const { entity, upserts, deletes } of await foldBatch(projection, page, source)) {
          const rows = table(entity);
          for (const [id, row] of upserts) rows.set(id, row);
          for (const id of deletes) rows.delete(id);
        }
      }
      checkpoint = page.at(-1)?.position ?? checkpoint;
    }
  };
  /** One fold at a time, as one runner per projection applies its batches in order. */
  const catchUp = () => {
    folding = folding.then(foldNew);
    return folding;
  };
  const current = async () => {
    if (!paused) await catchUp();
  };
  /** Copies, as rows read from a database are: a caller changing one changes no table. */
  const all = async <Row extends object>(entity: EntityName<Row>): Promise<Row[]> => {
    await current();
    return [...table(entity).values()].map((row) => structuredClone(row));
  };

  const results: ResultReadModel = {
    async get(orgId, requestId) {
      const row = (await all(ResultRow)).find((each) => each.requestId === requestId && each.orgId === orgId && !each.deleted);
      return row ? resultView(row) : null;
    },
    async list(orgId, filter) {
      const rows = (await all(ResultRow))
        .filter((row) => row.orgId === orgId && !row.deleted)
        .filter((row) => filter.templateId === undefined || row.templateId === filter.templateId)
        .filter((row) => filter.batchName === undefined || row.batchName === filter.batchName)
        .sort(newestFirst((row) => row.requestId));
      return { items: rows.slice(filter.page * filter.size, (filter.page + 1) * filter.size).map(resultView), total: rows.length };
    },
    async slice(orgId, { offset, limit }) {
      const rows = (await all(ResultRow)).filter((row) => row.orgId === orgId && !row.deleted).sort(newestFirst((row) => row.requestId));
      return rows.slice(offset, offset + limit).map(resultView);
    },
    async findCached(orgId, cacheKey) {
      const [row] = (await all(ResultRow))
        .filter((each) => each.orgId === orgId && each.cacheKey === cacheKey && each.status === 'done' && !each.deleted && !each.fileDeleted)
        .sort(newestFirst((each) => each.requestId));
      if (!row?.storageKey || !row.contentType || row.bytes === null || row.bytes === undefined) return null;
      return {
        requestId: row.requestId,
        dataFrom: row.dataFrom ?? row.requestId,
        storageKey: row.storageKey,
        contentType: row.contentType,
        bytes: row.bytes,
        width: row.width ?? null,
        height: row.height ?? null,
      };
    },
    async stalePending(before, limit) {
      return (await all(ResultRow))
        .filter((row) => row.status === 'pending' && row.createdAt < before)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
        .slice(0, limit)
        .map(({ requestId, orgId }) => ({ requestId, orgId }));
    },
    async expiredTestResults(nowSeconds, limit) {
      return (await all(ResultRow))
        .filter((row) => row.test && !row.deleted && row.status !== 'pending' && typeof row.expiresAt === 'number' && row.expiresAt < nowSeconds)
        .sort((a, b) => (a.expiresAt ?? 0) - (b.expiresAt ?? 0))
        .slice(0, limit)
        .map(({ requestId, orgId }) => ({ requestId, orgId }));
    },
  };

  const templates: TemplateReadModel = {
    async get(orgId, templateId) {
      const row = (await all(TemplateRow)).find((each) => each.id === templateId && each.orgId === orgId && !each.deleted);
      return row ? templateView(row) : null;
    },
    async list(orgId, filter) {
      return (await all(TemplateRow))
        .filter((row) => row.orgId === orgId && !row.deleted)
        .filter((row) => !filter.name || row.name.toLowerCase().includes(filter.name.toLowerCase()))
        .filter((row) => !filter.tags || filter.tags.every((tag) => row.tags.includes(tag)))
        .filter((row) => !filter.sourceTemplateId || row.sourceTemplateId === filter.sourceTemplateId)
        .sort(newestFirst((row) => row.id))
        .slice(filter.page * filter.size, (filter.page + 1) * filter.size)
        .map(templateView);
    },
  };

  const byCreation = (a: { createdAt: Date }, b: { createdAt: Date }) => a.createdAt.getTime() - b.createdAt.getTime();
  const accounts: AccountReadModel = {
    async findKeyByHash(hash) {
      const row = (await all(ApiKeyRow)).find((each) => each.hash === hash);
      return row ? keyView(row) : null;
    },
    async listKeys(orgId) {
      return (await all(ApiKeyRow)).filter((row) => row.orgId === orgId).sort(byCreation).map(keyView);
    },
    async getAccount(orgId) {
      const row = (await all(AccountRow)).find((each) => each.orgId === orgId);
      return row ? accountView(row) : null;
    },
    async listAccounts() {
      return (await all(AccountRow)).sort(byCreation).map(accountView);
    },
  };

  const assets: AssetReadModel = {
    async listFonts(orgId) {
      const order = (row: FontRow) => [row.family, String(row.weight).padStart(4, '0'), row.style, row.createdAt.toISOString()].join('\u0000');
      return (await all(FontRow))
        .filter((row) => row.orgId === orgId)
        .sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0))
        .map(fontView);
    },
    async getFont(orgId, fontId) {
      const row = (await all(FontRow)).find((each) => each.id === fontId && each.orgId === orgId);
      return row ? fontView(row) : null;
    },
    async listUploads(orgId, { page, size }) {
      const rows = (await all(UploadRow)).filter((row) => row.orgId === orgId).sort(newestFirst((row) => row.id));
      return { items: rows.slice(page * size, (page + 1) * size).map(uploadView), total: rows.length };
    },
    async getUpload(orgId, uploadId) {
      const row = (await all(UploadRow)).find((each) => each.id === uploadId && each.orgId === orgId);
      return row ? uploadView(row) : null;
    },
  };

  const progress: ProjectionProgress = {
    async waitFor(position) {
      await current();
      return checkpoint >= position;
    },
  };

  const signingKeys: UrlSigningKeyReadModel = {
    list: async (orgId) =>
      [...table(UrlSigningKeyRow).values()]
        .filter((row) => row.orgId === orgId)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
        .map(toUrlSigningKeyView),
    get: async (orgId, keyId) => {
      const row = table(UrlSigningKeyRow).get(keyId);
      return row?.orgId === orgId ? toUrlSigningKeyView(row) : null;
    },
    lookup: async (keyId) => {
      const row = table(UrlSigningKeyRow).get(keyId);
      return row ? toUrlSigningKeyView(row) : null;
    },
  };

  return {
    templates,
    results,
    accounts,
    assets,
    signingKeys,
    progress,
    catchUp,
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
    },
    rows: (entity) => [...table(entity).values()].map((row) => structuredClone(row)),
  };
};
