import { Migration } from '@mikro-orm/migrations';

/**
 * The admin scope, as ApiKeyIssued's upcaster gives it (account-event-schemas.ts): a key that held
 * every scope before account administration had its own keeps administering, so rows projected
 * before then read as a rebuild from the log would.
 */
export class Migration20261128090000AdminScope extends Migration {
  override name = 'Migration20261128090000AdminScope';

  override up(): void | Promise<void> {
    this.addSql(`update "api_keys" set "scopes" = array_append("scopes", 'admin') where "scopes" @> array['render', 'templates', 'audit']::text[] and not ('admin' = any("scopes"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`update "api_keys" set "scopes" = array_remove("scopes", 'admin');`);
  }
}
