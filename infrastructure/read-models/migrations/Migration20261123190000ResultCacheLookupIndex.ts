import { Migration } from '@mikro-orm/migrations';

/**
 * Every cache hit is a result row of its own with the same cache key, so (org_id, cache_key) led a
 * lookup to every earlier hit of the key, sorted on each request: a popular key got slower the more
 * it was used. This index holds only the rows a hit may reuse, newest first, so the lookup reads
 * one entry; it replaces the old index, which nothing else used.
 */
export class Migration20261123190000ResultCacheLookupIndex extends Migration {
  override name = 'Migration20261123190000ResultCacheLookupIndex';

  override up(): void | Promise<void> {
    this.addSql(
      `create index "results_cache_lookup_index" on "results" ("org_id", "cache_key", "created_at" desc, "request_id" desc) ` +
        `where "status" = 'done' and not "deleted" and not "file_deleted";`,
    );
    this.addSql(`drop index if exists "results_org_id_cache_key_index";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`create index "results_org_id_cache_key_index" on "results" ("org_id", "cache_key");`);
    this.addSql(`drop index if exists "results_cache_lookup_index";`);
  }
}
