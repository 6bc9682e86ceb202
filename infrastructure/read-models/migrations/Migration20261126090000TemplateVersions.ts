import { Migration } from '@mikro-orm/migrations';

/**
 * Template versions: the latest version's number and the published one. Rows from before count
 * their versions from the PostgreSQL event store when it shares this database (every template
 * event after creation up to now changed the template); with EventStoreDB, `projections rebuild`
 * numbers them.
 */
export class Migration20261126090000TemplateVersions extends Migration {
  override name = 'Migration20261126090000TemplateVersions';

  override up(): void | Promise<void> {
    this.addSql(`alter table "templates" add column "version" int not null default 1, add column "published_version" int null;`);
    this.addSql(`
      do $$ begin
        if to_regclass('events') is not null then
          update "templates" as t set "version" = 1 + (
            select count(*) from events as e
            where e.stream_name = 'template-' || t.id
              and e.type in ('TemplateUpdated', 'TemplateContentReplaced', 'TemplateComponentsReplaced')
          );
        end if;
      end $$;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "templates" drop column "version", drop column "published_version";`);
  }
}
