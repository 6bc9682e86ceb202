import { Migration } from '@mikro-orm/migrations';

/** Keys that sign GET /img URLs, and whether an organization still takes API keys in /img query strings. */
export class Migration20261126100000UrlSigningKeys extends Migration {
  override name = 'Migration20261126100000UrlSigningKeys';

  override up(): void | Promise<void> {
    this.addSql(`create table "url_signing_keys" ("id" varchar(255) not null, "org_id" varchar(255) not null, "sealed_secret" text not null, "created_at" timestamptz not null, "rotated_at" timestamptz null, "revoked_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "url_signing_keys_org_id_index" on "url_signing_keys" ("org_id");`);

    this.addSql(`alter table "accounts" add "api_key_in_query" boolean not null default true;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "url_signing_keys" cascade;`);

    this.addSql(`alter table "accounts" drop column "api_key_in_query";`);
  }
}
