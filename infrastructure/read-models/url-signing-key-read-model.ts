import type { MikroORM } from '@mikro-orm/postgresql';
import type { UrlSigningKeyReadModel, UrlSigningKeyView } from '../../application/ports/read-models.js';
import { UrlSigningKeyRow } from './entities.js';

/** A key's row as the use cases see it. */
export const toUrlSigningKeyView = (row: UrlSigningKeyRow): UrlSigningKeyView => ({
  id: row.id,
  orgId: row.orgId,
  sealedSecret: row.sealedSecret,
  createdAt: row.createdAt,
  rotatedAt: row.rotatedAt ?? null,
  revokedAt: row.revokedAt ?? null,
});

export const createUrlSigningKeyReadModel = (orm: MikroORM): UrlSigningKeyReadModel => ({
  async list(orgId) {
    return (await orm.em.fork().find(UrlSigningKeyRow, { orgId }, { orderBy: { createdAt: 'asc', id: 'asc' } })).map(toUrlSigningKeyView);
  },
  async get(orgId, keyId) {
    const row = await orm.em.fork().findOne(UrlSigningKeyRow, { id: keyId, orgId });
    return row ? toUrlSigningKeyView(row) : null;
  },
  async lookup(keyId) {
    const row = await orm.em.fork().findOne(UrlSigningKeyRow, { id: keyId });
    return row ? toUrlSigningKeyView(row) : null;
  },
});
