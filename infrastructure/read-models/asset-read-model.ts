import type { MikroORM } from '@mikro-orm/postgresql';
import type { AssetReadModel, FontView, UploadView } from '../../application/ports/read-models.js';
import type { FontFormat, FontStyle, ImageUploadType } from '../../domain/accounts/asset-events.js';
import { FontRow, UploadRow } from './entities.js';

const toFontView = (row: FontRow): FontView => ({
  id: row.id,
  orgId: row.orgId,
  family: row.family,
  originalName: row.originalName,
  weight: row.weight,
  style: row.style as FontStyle,
  format: row.format as FontFormat,
  subsets: row.subsets,
  category: row.category,
  bytes: row.bytes,
  storageKey: row.storageKey,
  createdAt: row.createdAt,
});

const toUploadView = (row: UploadRow): UploadView => ({
  id: row.id,
  orgId: row.orgId,
  contentType: row.contentType as ImageUploadType,
  bytes: row.bytes,
  width: row.width,
  height: row.height,
  storageKey: row.storageKey,
  createdAt: row.createdAt,
});

export const createAssetReadModel = (orm: MikroORM): AssetReadModel => ({
  async listFonts(orgId) {
    return (await orm.em.fork().find(FontRow, { orgId }, { orderBy: { family: 'asc', weight: 'asc', style: 'asc', createdAt: 'asc' } })).map(toFontView);
  },
  async getFont(orgId, fontId) {
    const row = await orm.em.fork().findOne(FontRow, { id: fontId, orgId });
    return row ? toFontView(row) : null;
  },
  async listUploads(orgId, { page, size }) {
    const [rows, total] = await orm.em.fork().findAndCount(UploadRow, { orgId }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: size, offset: page * size });
    return { items: rows.map(toUploadView), total };
  },
  async getUpload(orgId, uploadId) {
    const row = await orm.em.fork().findOne(UploadRow, { id: uploadId, orgId });
    return row ? toUploadView(row) : null;
  },
});
