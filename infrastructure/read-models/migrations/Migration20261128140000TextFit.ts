import { Migration } from '@mikro-orm/migrations';

/** What fitting did to a render's text, kept with its result. */
export class Migration20261128140000TextFit extends Migration {
  override name = 'Migration20261128140000TextFit';

  override up(): void | Promise<void> {
    this.addSql(`alter table "results" add column if not exists "fit" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "results" drop column if exists "fit";`);
  }
}
