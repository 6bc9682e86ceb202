import { Migration } from '@mikro-orm/migrations';

/** The template version a render drew; null for captures and for renders made before versions existed. */
export class Migration20261126090100ResultTemplateVersion extends Migration {
  override name = 'Migration20261126090100ResultTemplateVersion';

  override up(): void | Promise<void> {
    this.addSql(`alter table "results" add column "template_version" int null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "results" drop column "template_version";`);
  }
}
