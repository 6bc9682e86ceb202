import { Migration } from '@mikro-orm/migrations';

/** Test keys, and the results they made: every key and result before them is live. */
export class Migration20261128150000TestKeys extends Migration {
  override name = 'Migration20261128150000TestKeys';

  override up(): void | Promise<void> {
    this.addSql(`alter table "api_keys" add column if not exists "test" boolean not null default false;`);
    this.addSql(`alter table "results" add column if not exists "test" boolean not null default false;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "api_keys" drop column if exists "test";`);
    this.addSql(`alter table "results" drop column if exists "test";`);
  }
}
