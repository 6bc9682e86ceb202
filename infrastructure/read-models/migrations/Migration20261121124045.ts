import { Migration } from '@mikro-orm/migrations';

export class Migration20261121124045 extends Migration {

  override name = 'Migration20261121124045';

  override up(): void | Promise<void> {
    this.addSql(`create table "results" ("request_id" varchar(255) not null, "org_id" varchar(255) not null, "template_id" varchar(255) not null, "template_name" varchar(255) not null, "status" varchar(255) not null, "format" varchar(255) not null, "width" int null, "height" int null, "expires_at" bigint null, "storage_key" text null, "file_name" text not null, "content_type" varchar(255) null, "bytes" bigint null, "cached" boolean not null default false, "cache_key" varchar(255) null, "batch_name" text null, "metadata" jsonb null, "request" jsonb not null, "failure_reason" text null, "credits" int not null, "deleted" boolean not null default false, "file_deleted" boolean not null default false, "created_at" timestamptz not null, "completed_at" timestamptz null, primary key ("request_id"));`);
    this.addSql(`create index "results_org_id_created_at_index" on "results" ("org_id", "created_at");`);
    this.addSql(`create index "results_org_id_cache_key_index" on "results" ("org_id", "cache_key");`);

    this.addSql(`create table "account_stored_files" ("request_id" varchar(255) not null, "org_id" varchar(255) not null, "bytes" bigint not null, primary key ("request_id"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "results" cascade;`);
    this.addSql(`drop table if exists "account_stored_files" cascade;`);
  }

}
