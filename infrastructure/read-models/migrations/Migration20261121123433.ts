import { Migration } from '@mikro-orm/migrations';

export class Migration20261121123433 extends Migration {

  override name = 'Migration20261121123433';

  override up(): void | Promise<void> {
    this.addSql(`create table "accounts" ("org_id" varchar(255) not null, "name" varchar(255) not null, "plan_name" varchar(255) not null, "plan_status" varchar(255) not null, "credits_total" int not null, "credits_used" int not null default 0, "renewal_amount" int not null, "next_renewal_at" varchar(255) not null, "uploads_used" bigint not null default '0', "uploads_total" bigint not null, "created_at" timestamptz not null, primary key ("org_id"));`);

    this.addSql(`create table "api_keys" ("id" varchar(255) not null, "org_id" varchar(255) not null, "hash" varchar(255) not null, "prefix" varchar(255) not null, "label" varchar(255) not null, "scopes" text[] not null, "revoked" boolean not null default false, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "api_keys_org_id_index" on "api_keys" ("org_id");`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_hash_unique" unique ("hash");`);

    this.addSql(`create table "projection_checkpoints" ("name" varchar(255) not null, "position" bigint not null, primary key ("name"));`);

    this.addSql(`create table "templates" ("id" varchar(255) not null, "org_id" varchar(255) not null, "name" varchar(255) not null, "editor" varchar(255) not null, "width" int not null, "height" int not null, "output_format" varchar(255) not null, "quality" int not null, "scale_factor" double precision not null, "record_duration" int null, "fps" int null, "tags" text[] not null default '{}', "created_by" varchar(255) not null, "source_template_id" varchar(255) null, "html" text null, "css" text null, "sample_data" jsonb null, "merge_fields" text[] not null default '{}', "preview" varchar(255) null, "deleted" boolean not null default false, "revision" int not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "templates_org_id_index" on "templates" ("org_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "accounts" cascade;`);
    this.addSql(`drop table if exists "api_keys" cascade;`);
    this.addSql(`drop table if exists "projection_checkpoints" cascade;`);
    this.addSql(`drop table if exists "templates" cascade;`);
  }

}
