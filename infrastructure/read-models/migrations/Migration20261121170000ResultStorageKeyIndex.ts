import { Migration } from '@mikro-orm/migrations';

/**
 * Deleting a result marks the cache hits that share its file, found by (org_id, storage_key):
 * without an index that is a scan of the organization's results per deletion, which a rebuild
 * of a long log does thousands of times.
 */
export class Migration20261121170000ResultStorageKeyIndex extends Migration {

  override name = 'Migration20261121170000ResultStorageKeyIndex';

  override up(): void | Promise<void> {
    this.addSql(`create index "results_org_id_storage_key_index" on "results" ("org_id", "storage_key");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "results_org_id_storage_key_index";`);
  }

}
