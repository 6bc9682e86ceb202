import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditService } from '../../application/audit/audit-service.js';
import type { EventStore } from '../../application/ports/event-store.js';
import { accountStream } from '../../domain/accounts/account-events.js';
import { renderStream } from '../../domain/renders/render-events.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import { templateStream } from '../../domain/templates/template-events.js';
import { createEventIntegrity } from '../../infrastructure/audit/event-integrity.js';
import { createLedgerReadModel } from '../../infrastructure/audit/ledger-read-model.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { eventSchemaRegistry } from '../../infrastructure/event-schemas/event-schema-registry.js';
import { createPostgresEventStore } from '../../infrastructure/event-store/postgres-event-store.js';
import type { Projection } from '../../infrastructure/projections/projection.js';
import { allProjections, createProjectionSet, type ProjectionSet } from '../../infrastructure/projections/projection-set.js';
import { TemplateRow } from '../../infrastructure/read-models/entities.js';
import { createRebuilder, readModelTables } from '../../infrastructure/projections/rebuild.js';
import { openReadModels } from '../../infrastructure/read-models/orm.js';
import { at, createWriter, writeScriptedHistory, type ScriptedHistory } from '../fixtures/scripted-history.js';
import { createTestDatabase } from '../support/database.js';
import { renderCompleted, renderRequested } from '../support/render-events.js';

const logger = createLogger('silent');

let databaseUrl: string;
let eventStore: EventStore;
let orm: MikroORM;
let live: ProjectionSet;
let sql: pg.Pool;
let histories: ScriptedHistory[];
let shared: { source: string; hit: string };

const rebuilder = (batchSize?: number, holdRowsFor?: number) => createRebuilder({ orm, databaseUrl, eventStore, logger, batchSize, holdRowsFor, liveWaitMs: 15_000 });

const settle = async () => {
  expect(await live.waitFor((await eventStore.headPosition()) ?? -1, 15_000)).toBe(true);
};

/** Every read-model table, rows sorted, so two dumps compare whatever the physical order. */
const dump = async () => {
  const result: Record<string, unknown[]> = {};
  for (const table of readModelTables(orm)) result[table] = (await sql.query(`select to_jsonb(t) as row from ${table} t order by t::text`)).rows.map((row) => row.row);
  return result;
};

const indexNames = async () =>
  (await sql.query<{ name: string }>("select indexname as name from pg_indexes where schemaname = 'public' and tablename <> 'events' order by 1")).rows.map((row) => row.name);

const leftoverSchemas = async () =>
  (await sql.query<{ name: string }>("select nspname as name from pg_namespace where nspname like 'rebuild\\_%' or nspname like 'retired\\_%'")).rows;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  eventStore = await createPostgresEventStore({ connectionString: databaseUrl, schemas: eventSchemaRegistry });
  orm = await openReadModels(databaseUrl);
  live = createProjectionSet({ orm, eventStore, logger });
  await live.start();
  sql = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  histories = [await writeScriptedHistory(eventStore), await writeScriptedHistory(eventStore)];
  shared = await writeSharedFileDeletion();
  await writeAwkwardTemplate();
  await revokeLate();
  await settle();
});

/** A render whose file a cache hit reuses, then deleted: the hit loses the file too (a query by storage key). */
const writeSharedFileDeletion = async () => {
  const writer = createWriter(eventStore);
  const orgId = histories[0]?.orgId ?? '';
  const [source, hit] = [randomUUID(), randomUUID()];
  const storageKey = `${orgId}/${source}/card.png`;
  await writer.append(renderStream(source), [renderRequested({ requestId: source, orgId, requestedAt: at(800) }), renderCompleted({ requestId: source, completedAt: at(801), storageKey })], { orgId, second: 801 });
  await writer.append(renderStream(hit), [renderRequested({ requestId: hit, orgId, requestedAt: at(802), credits: 0 }), renderCompleted({ requestId: hit, completedAt: at(802), storageKey, cached: true, sourceRequestId: source })], { orgId, second: 802 });
  await writer.append(renderStream(source), [{ type: 'ResultDeleted', data: { requestId: source, deletedAt: at(803) } }], { orgId, second: 803 });
  return { source, hit };
};
/** A template whose texts hold what COPY's text format and array literals escape: tabs, newlines, backslashes, quotes, braces, commas, NULL. */
const writeAwkwardTemplate = async () => {
  const writer = createWriter(eventStore);
  const orgId = histories[0]?.orgId ?? '';
  const templateId = `tpl-${randomUUID()}`;
  const awkward = 'tab\there\nnew line\r\\ back\\slash "quoted" {braced, listed} NULL \\N é😀';
  await writer.append(
    templateStream(templateId),
    [
      {
        type: 'TemplateCreated',
        data: { templateId, orgId, name: awkward, editor: 'html-editor', width: 640, height: 480, outputFormat: 'png', quality: 90, scaleFactor: 1.25, recordDuration: null, fps: null, tags: [awkward, 'NULL', '', 'plain'], createdBy: 'system', sourceTemplateId: null, createdAt: at(900) },
      },
      {
        type: 'TemplateContentReplaced',
        data: { templateId, html: `<p>\n${awkward}</p>`, css: 'p{content:"\\201C"}', sampleData: { [awkward]: awkward, nested: { list: [awkward, null, 1.5] } }, mergeFields: [awkward], replacedAt: at(901) },
      },
    ],
    { orgId, second: 901 },
  );
};

/** A revocation long after the account last changed: it reads the account's row and leaves it as it was. */
const revokeLate = async () => {
  const [, history] = histories;
  if (!history) throw new Error('no history');
  await createWriter(eventStore).append(accountStream(history.orgId), [{ type: 'ApiKeyRevoked', data: { keyId: history.keys.auditor, revokedAt: at(950) } }], {
    orgId: history.orgId,
    second: 950,
  });
};

afterAll(async () => {
  await live?.stop();
  await orm?.close();
  await sql?.end();
  await eventStore?.close();
});

describe('projections rebuild --verify', () => {
  it('finds the rebuilt tables identical to consistent live ones, in any batch size, however few rows it holds in memory', async () => {
    expect((await sql.query('select request_id from results where file_deleted and request_id = any($1) order by 1', [[shared.source, shared.hit]])).rows).toHaveLength(2);
    // Holding rows for a few events only, the rebuild writes most of them out early, reads them
    // back when a later event changes them, and finds fan-outs among rows it wrote.
    for (const [batchSize, holdRowsFor] of [[5_000, undefined], [7, 7], [2, 1]] as const) {
      const report = await rebuilder(batchSize, holdRowsFor).verify();
      expect(report.differences).toEqual([]);
      expect(report.position).toBe(await eventStore.headPosition());
      expect(report.tables).toEqual(expect.arrayContaining(['accounts', 'results', 'templates', 'api_keys', 'projection_checkpoints']));
    }
    expect(await leftoverSchemas()).toEqual([]);
  });

  it('reports the rows where a live table differs', async () => {
    const [history] = histories;
    if (!history) throw new Error('no history');
    await sql.query('update templates set name = $2 where id = $1', [history.templateId, 'Tampered']);
    try {
      const { differences } = await rebuilder().verify();
      expect(differences).toEqual([
        {
          table: 'templates',
          onlyLive: 1,
          onlyRebuilt: 1,
          samples: [
            { side: 'live', row: expect.objectContaining({ id: history.templateId, name: 'Tampered' }) },
            { side: 'rebuilt', row: expect.objectContaining({ id: history.templateId, name: 'Card v2' }) },
          ],
        },
      ]);
    } finally {
      await sql.query('update templates set name = $2 where id = $1', [history.templateId, 'Card v2']);
    }
  });

  it('hands projections an entity manager on the fresh tables, not the live ones', async () => {
    // The same projections; the templates one also counts the template rows it sees before each batch.
    const seen: number[] = [];
    const counting = allProjections.map(
      (projection): Projection => ({
        name: projection.name,
        async apply(em: EntityManager, events: readonly RecordedEvent[]) {
          if (projection.name === 'templates' && events.some((event) => event.type === 'TemplateCreated')) seen.push(await em.count(TemplateRow, {}));
          await projection.apply(em, events);
        },
      }),
    );
    const report = await createRebuilder({ orm, databaseUrl, eventStore, logger, projections: counting, liveWaitMs: 15_000 }).verify();
    expect(seen[0]).toBe(0);
    expect(Number((await sql.query('select count(*) from templates')).rows[0]?.count)).toBeGreaterThan(0);
    expect(report.differences).toEqual([]);
    expect(await leftoverSchemas()).toEqual([]);
  });
});

describe('projections rebuild (swap)', () => {
  it('swaps in identical tables, keeping index names and leaving nothing behind', async () => {
    const before = await dump();
    const indexes = await indexNames();
    const report = await rebuilder().swap();
    expect(report.position).toBe(await eventStore.headPosition());
    expect(await dump()).toEqual(before);
    expect(await indexNames()).toEqual(indexes);
    expect(await leftoverSchemas()).toEqual([]);
    // The live runners carry on into the swapped tables.
    const writer = createWriter(eventStore);
    const templateId = `tpl-${randomUUID()}`;
    await writer.append(templateStream(templateId), [{ type: 'TemplateDeleted', data: { templateId, deletedAt: new Date().toISOString() } }], { orgId: 'org-x', second: 1 });
    await settle();
  });

  it('takes in, exactly once, what the live projections applied while the rebuild ran', async () => {
    const [, history] = histories;
    if (!history) throw new Error('no history');
    const writer = createWriter(eventStore);
    const before = Number((await sql.query('select credits_used from accounts where org_id = $1', [history.orgId])).rows[0]?.credits_used);
    let injections = 0;
    // Each time the rebuild reaches the head, more charges arrive and the live projections apply
    // them at once: at the swap, the live tables are ahead of what the rebuild has built.
    const onProgress = async (position: number, head: number) => {
      if (position < head || injections >= 2) return;
      injections += 1;
      for (let index = 0; index < 3; index++) {
        await writer.append(accountStream(history.orgId), [{ type: 'CreditsCharged', data: { requestId: `ahead-${injections}-${index}`, amount: 10, chargedAt: new Date().toISOString() } }], {
          orgId: history.orgId,
          second: 2000,
        });
      }
      await settle();
    };
    await createRebuilder({ orm, databaseUrl, eventStore, logger, batchSize: 20, onProgress }).swap();
    await settle();
    expect(injections).toBe(2);
    expect((await sql.query('select credits_used from accounts where org_id = $1', [history.orgId])).rows[0]).toEqual({ credits_used: before + 60 });
    expect((await rebuilder().verify()).differences).toEqual([]);
  });

  it('never makes live projections apply an event twice or skip one while writers and readers keep going', async () => {
    const [history] = histories;
    if (!history) throw new Error('no history');
    const writer = createWriter(eventStore);
    let writing = true;
    let charged = 0;
    // Charges increment a counter: applied twice or skipped, the sum shows it. Several writers
    // keep appending, so events land in every step of the swap.
    const writes = Promise.all(
      [0, 1, 2, 3].map(async (lane) => {
        for (let index = 0; writing; index++) {
          await writer.append(
            accountStream(history.orgId),
            [{ type: 'CreditsCharged', data: { requestId: `swap-${lane}-${index}`, amount: 1, chargedAt: new Date().toISOString() } }],
            { orgId: history.orgId, second: 1000 + index },
          );
          charged += 1;
        }
      }),
    );
    let reading = true;
    let reads = 0;
    const readFailures: unknown[] = [];
    const readers = (async () => {
      while (reading) {
        await sql.query('select count(*) from results').then(
          () => (reads += 1),
          (error: unknown) => readFailures.push(error),
        );
        if (readFailures.length > 10) break;
      }
    })();

    try {
      for (let round = 0; round < 3; round++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        await rebuilder(50).swap();
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      writing = false;
      await writes;
      reading = false;
      await readers;
    }
    await settle();

    expect(charged).toBeGreaterThan(5);
    expect(readFailures).toEqual([]);
    expect(reads).toBeGreaterThan(10);
    const account = (await sql.query('select credits_used from accounts where org_id = $1', [history.orgId])).rows[0];
    expect(account).toEqual({ credits_used: history.creditsUsed + charged });
    // The ledger recomputed from events agrees everywhere, and so does a fresh rebuild.
    const audit = createAuditService({ eventStore, integrity: createEventIntegrity(), ledger: createLedgerReadModel(databaseUrl) });
    expect((await audit.verify()).differences).toBe(0);
    expect((await rebuilder().verify()).differences).toEqual([]);
  });
});
