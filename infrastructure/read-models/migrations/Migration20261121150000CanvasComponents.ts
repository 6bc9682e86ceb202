import { Migration } from '@mikro-orm/migrations';

/** The component document and derived properties of canvas-editor and canvas-html templates; null for html-editor ones. */
export class Migration20261121150000CanvasComponents extends Migration {
  override name = 'Migration20261121150000CanvasComponents';

  override up(): void | Promise<void> {
    this.addSql(`alter table "templates" add column "components" jsonb null, add column "properties" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "templates" drop column "components", drop column "properties";`);
  }
}
