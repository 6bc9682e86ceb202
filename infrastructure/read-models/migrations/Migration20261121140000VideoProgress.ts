import { Migration } from '@mikro-orm/migrations';

/** Progress of pending video renders (frames captured of the whole video); null for every other result. */
export class Migration20261121140000VideoProgress extends Migration {
  override name = 'Migration20261121140000VideoProgress';

  override up(): void | Promise<void> {
    this.addSql(`alter table "results" add column "frames_done" int null, add column "frames_total" int null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "results" drop column "frames_done", drop column "frames_total";`);
  }
}
