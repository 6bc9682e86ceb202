import { Migration } from '@mikro-orm/migrations';

/** The repair of requests left pending looks for old pending rows across organizations: few rows, one small index. */
export class Migration20261123220000PendingResultsIndex extends Migration {
  override name = 'Migration20261123220000PendingResultsIndex';

  override up(): void | Promise<void> {
    this.addSql(`create index "results_pending_index" on "results" ("created_at") where "status" = 'pending';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "results_pending_index";`);
  }
}
