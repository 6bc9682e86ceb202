import { Migration } from '@mikro-orm/migrations';

/** Batches of renders from rows of data, as their streams tell them. */
export class Migration20261128100000Batches extends Migration {
  override name = 'Migration20261128100000Batches';

  override up(): void | Promise<void> {
    this.addSql(`create table "batches" ("id" varchar(255) not null, "org_id" varchar(255) not null, "name" varchar(255) not null, "template_id" varchar(255) not null, "template_version" int null, "output_format" varchar(255) not null, "total" int not null, "credits" int not null, "merge" boolean not null, "webhook_url" text null, "rows_storage_key" varchar(255) not null, "status" varchar(255) not null, "created_at" timestamptz not null, "cancelled_at" timestamptz null, "ended_at" timestamptz null, "done" int null, "failed" int null, "cached" int null, "skipped" int null, "credits_charged" int null, "merged_storage_key" varchar(255) null, primary key ("id"));`);
    this.addSql(`create index "batches_org_id_created_at_index" on "batches" ("org_id", "created_at");`);
    this.addSql(`create index "batches_org_id_name_index" on "batches" ("org_id", "name");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "batches" cascade;`);
  }
}
