import { Migration } from '@mikro-orm/migrations';

/** Cache hits with large data store it by reference (RenderRequested.dataFrom); the row keeps the reference. */
export class Migration20261123230000ResultDataFrom extends Migration {
  override name = 'Migration20261123230000ResultDataFrom';

  override up(): void | Promise<void> {
    this.addSql(`alter table "results" add column "data_from" varchar(255) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "results" drop column "data_from";`);
  }
}
