import { Migration } from '@mikro-orm/migrations';

/** Where a result's webhook delivery stands (status, attempts, last answer); null without a webhookUrl. */
export class Migration20261121160000WebhookDelivery extends Migration {
  override name = 'Migration20261121160000WebhookDelivery';

  override up(): void | Promise<void> {
    this.addSql(`alter table "results" add column "webhook" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "results" drop column "webhook";`);
  }
}
