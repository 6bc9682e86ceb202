import { Migration } from '@mikro-orm/migrations';

/** Results of screenshots and PDFs of web pages: what kind of result a row is, and the captured URL. */
export class Migration20261121133000Captures extends Migration {

  override name = 'Migration20261121133000Captures';

  override up(): void | Promise<void> {
    this.addSql(`alter table "results" add column "kind" varchar(255) not null default 'template', add column "url" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "results" drop column "kind", drop column "url";`);
  }

}
