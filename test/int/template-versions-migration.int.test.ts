import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { toEnvelopes } from '../../application/shared/command-handler.js';
import { systemContextFor } from '../../application/shared/request-context.js';
import { templateStream, type TemplateEvent } from '../../domain/templates/template-events.js';
import { createPostgresEventStore } from '../../infrastructure/event-store/postgres-event-store.js';
import { ormConfig } from '../../infrastructure/read-models/orm.js';
import { uuidV7Ids } from '../../infrastructure/system/clock-and-ids.js';
import { createTestDatabase } from '../support/database.js';

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

const at = '2026-01-01T00:00:00.000Z';
const content = (html: string): TemplateEvent => ({ type: 'TemplateContentReplaced', data: { templateId: 't1', html, css: '', sampleData: {}, mergeFields: [], replacedAt: at } });

it('numbers the latest version of templates stored before versions existed, from their events', async () => {
  const url = await createTestDatabase();
  const eventStore = await createPostgresEventStore({ connectionString: url });
  closers.push(() => eventStore.close());
  const events: TemplateEvent[] = [
    {
      type: 'TemplateCreated',
      data: { templateId: 't1', orgId: 'org', name: 'Card', editor: 'html-editor', width: 100, height: 50, outputFormat: 'png', quality: 80, scaleFactor: 1, recordDuration: null, fps: null, tags: [], createdBy: 'API', sourceTemplateId: null, createdAt: at },
    },
    content('<p>a</p>'),
    { type: 'TemplateUpdated', data: { templateId: 't1', changes: { name: 'Card 2' }, updatedAt: at } },
    content('<p>b</p>'),
  ];
  await eventStore.append(templateStream('t1'), toEnvelopes(events, systemContextFor('org', 'c1'), { clock: { now: () => new Date(at) }, ids: uuidV7Ids }), 'no-stream');

  const orm = await MikroORM.init(ormConfig(url));
  closers.push(() => orm.close());
  await orm.migrator.up({ to: 'Migration20261125084425Uploads' });
  const sql = new pg.Pool({ connectionString: url, max: 1 });
  closers.push(() => sql.end());
  // The row as the templates projection left it before versions: revision 3, no version columns.
  await sql.query(
    `insert into templates (id, org_id, name, editor, width, height, output_format, quality, scale_factor, tags, created_by, html, css, merge_fields, deleted, revision, created_at, updated_at)
     values ('t1', 'org', 'Card 2', 'html-editor', 100, 50, 'png', 80, 1, '{}', 'API', '<p>b</p>', '', '{}', false, 3, now(), now())`,
  );

  await orm.migrator.up();

  const { rows } = await sql.query('select version, published_version from templates where id = $1', ['t1']);
  expect(rows).toEqual([{ version: 4, published_version: null }]);
});
