import type { MikroORM } from '@mikro-orm/postgresql';
import type { AccountReadModel, AccountView, ApiKeyView } from '../../application/ports/read-models.js';
import type { ApiKeyScope } from '../../domain/accounts/account-events.js';
import { AccountRow, ApiKeyRow } from './entities.js';

const toKeyView = (row: ApiKeyRow): ApiKeyView => ({
  id: row.id,
  orgId: row.orgId,
  hash: row.hash,
  prefix: row.prefix,
  label: row.label,
  scopes: row.scopes as ApiKeyScope[],
  test: row.test,
  revoked: row.revoked,
  createdAt: row.createdAt,
});

export const toAccountView = (row: AccountRow): AccountView => ({
  orgId: row.orgId,
  name: row.name,
  planName: row.planName,
  planStatus: row.planStatus,
  creditsTotal: row.creditsTotal,
  creditsUsed: row.creditsUsed,
  renewalAmount: row.renewalAmount,
  nextRenewalAt: row.nextRenewalAt,
  uploadsUsed: row.uploadsUsed,
  assetsBytes: row.assetsBytes,
  assetsVersion: row.assetsVersion,
  uploadsTotal: row.uploadsTotal,
  apiKeyInQuery: row.apiKeyInQuery,
});

export const createAccountReadModel = (orm: MikroORM): AccountReadModel => ({
  async findKeyByHash(hash) {
    const row = await orm.em.fork().findOne(ApiKeyRow, { hash });
    return row ? toKeyView(row) : null;
  },
  async listKeys(orgId) {
    return (await orm.em.fork().find(ApiKeyRow, { orgId }, { orderBy: { createdAt: 'asc' } })).map(toKeyView);
  },
  async getAccount(orgId) {
    const row = await orm.em.fork().findOne(AccountRow, { orgId });
    return row ? toAccountView(row) : null;
  },
  async listAccounts() {
    return (await orm.em.fork().find(AccountRow, {}, { orderBy: { createdAt: 'asc' } })).map(toAccountView);
  },
});
