import { Migration } from '@mikro-orm/migrations';

/** Uploaded fonts and images of each organization, and the part of its upload storage they take. */
export class Migration20261125084425Uploads extends Migration {
  override name = 'Migration20261125084425Uploads';

  override up(): void | Promise<void> {
    this.addSql(`create table "fonts" ("id" varchar(255) not null, "org_id" varchar(255) not null, "family" varchar(255) not null, "original_name" varchar(255) not null, "weight" int not null, "style" varchar(255) not null, "format" varchar(255) not null, "subsets" text[] not null, "category" varchar(255) not null, "bytes" bigint not null, "storage_key" varchar(255) not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "fonts_org_id_index" on "fonts" ("org_id");`);

    this.addSql(`create table "uploads" ("id" varchar(255) not null, "org_id" varchar(255) not null, "content_type" varchar(255) not null, "bytes" bigint not null, "width" int not null, "height" int not null, "storage_key" varchar(255) not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "uploads_org_id_created_at_index" on "uploads" ("org_id", "created_at");`);

    this.addSql(`alter table "accounts" add "assets_bytes" bigint not null default '0', add "assets_version" int not null default 0;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "fonts" cascade;`);
    this.addSql(`drop table if exists "uploads" cascade;`);

    this.addSql(`alter table "accounts" drop column "assets_bytes", drop column "assets_version";`);
  }
}
