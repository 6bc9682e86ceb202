import { Migration } from '@mikro-orm/migrations';

/** Results of test keys by when their link expires, for the sweep that deletes them then. */
export class Migration20261128180000TestResultExpiry extends Migration {
  override name = 'Migration20261128180000TestResultExpiry';

  override up(): void | Promise<void> {
    this.addSql(`create index if not exists "results_test_expiry_index" on "results" ("expires_at") where "test" and not "deleted";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "results_test_expiry_index";`);
  }
}
