import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { EventStore } from '../../application/ports/event-store.js';
import { toEnvelopes } from '../../application/shared/command-handler.js';
import type { RequestContext } from '../../application/shared/request-context.js';
import { accountStream, API_KEY_SCOPES, type AccountEvent, type Plan } from '../../domain/accounts/account-events.js';
import type { DomainEvent, RecordedEvent } from '../../domain/shared/events.js';
import { templateStream, type TemplateCreated, type TemplateEvent } from '../../domain/templates/template-events.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { createPostgresEventStore } from '../../infrastructure/event-store/postgres-event-store.js';
import { documentStore } from '../../infrastructure/projections/document-store.js';
import type { ApplyAtCheckpoint, Projection } from '../../infrastructure/projections/projection.js';
import { createRebuilder } from '../../infrastructure/projections/rebuild.js';
import { createProjectionRunner } from '../../infrastructure/projections/projection-runner.js';
import { templatesProjection } from '../../infrastructure/projections/templates-projection.js';
import { allProjections, createProjectionSet, type ProjectionSet } from '../../infrastructure/projections/projection-set.js';
import { AccountRow } from '../../infrastructure/read-models/entities.js';
import { openReadModels } from '../../infrastructure/read-models/orm.js';
import { sha256ApiKeyCodec } from '../../infrastructure/security/api-key-codec.js';
import { uuidV7Ids } from '../../infrastructure/system/clock-and-ids.js';
import { createRuntime, type Runtime } from '../../interfaces/composition-root.js';
import { createTestDatabase } from '../support/database.js';
import { templateCreated as createdTemplate } from '../support/template-events.js';

const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');

/** Tables that hold events or bookkeeping rather than projected rows. */
const NOT_READ_MODELS = ['events', 'mikro_orm_migrations'];
/** Tables a test creates for its own bookkeeping. */
const TEST_TABLE_PREFIX = 'spec_';

type Row = Record<string, unknown>;
type Dump = Record<string, Row[]>;

/** Every table the migrations created for projections (templates, accounts, api_keys, checkpoints, ...). */
const readModelTables = async (sql: pg.Pool): Promise<string[]> =>
  (
    await sql.query<{ tablename: string }>(
      "select tablename from pg_tables where schemaname = 'public' and tablename <> all($1) and tablename not like $2 order by tablename",
      [NOT_READ_MODELS, `${TEST_TABLE_PREFIX}%`],
    )
  ).rows.map((row) => row.tablename);

/** One database with its event store, read models and a raw connection pool for assertions. */
interface Store {
  readonly url: string;
  readonly eventStore: EventStore;
  readonly orm: MikroORM;
  readonly sql: pg.Pool;
  close(): Promise<void>;
}

const openStore = async (url?: string): Promise<Store> => {
  const databaseUrl = url ?? (await createTestDatabase());
  const eventStore = await createPostgresEventStore({ connectionString: databaseUrl });
  const orm = await openReadModels(databaseUrl);
  const sql = new pg.Pool({ connectionString: databaseUrl, max: 3 });
  return {
    url: databaseUrl,
    eventStore,
    orm,
    sql,
    async close() {
      await eventStore.close();
      await orm.close();
      await sql.end();
    },
  };
};

/** All read-model rows, each table ordered by whole rows so two dumps compare regardless of insertion order. */
const dump = async (sql: pg.Pool): Promise<Dump> => {
  const result: Dump = {};
  for (const table of await readModelTables(sql)) {
    result[table] = (await sql.query(`select * from ${table} t order by t::text`)).rows;
  }
  return result;
};

const truncateReadModels = async (sql: pg.Pool) => {
  await sql.query(`truncate ${(await readModelTables(sql)).join(', ')}`);
};

const lastPosition = async (sql: pg.Pool): Promise<number> =>
  Number((await sql.query<{ last: string | null }>('select max(position) as last from events')).rows[0]?.last ?? -1);

/** A clock that ticks one second per reading, so histories are deterministic and every time differs. */
const tickingClock = (start = Date.parse('2026-01-01T00:00:00.000Z')) => {
  let ticks = 0;
  return { now: () => new Date(start + 1000 * ticks++) };
};

const systemContext = (orgId: string): RequestContext => ({
  caller: { orgId, actor: 'system', scopes: API_KEY_SCOPES },
  correlationId: randomUUID(),
});

type StreamEvent = readonly [stream: string, event: TemplateEvent | AccountEvent];

/** Appends with the envelope the application writes (same metadata), as one org's system actor. */
const appendAll = async (eventStore: EventStore, orgId: string, events: readonly StreamEvent[]): Promise<number> => {
  let position = -1;
  const clock = tickingClock();
  for (const [stream, event] of events) {
    const envelopes = toEnvelopes([event as DomainEvent], systemContext(orgId), { clock, ids: uuidV7Ids });
    position = (await eventStore.append(stream, envelopes, 'any')).position;
  }
  return position;
};

const at = (second: number) => new Date(Date.parse('2026-02-01T10:00:00.000Z') + second * 1000).toISOString();

const plan = (credits = 500): Plan => ({
  name: 'free',
  status: 'active',
  credits,
  renewalAmount: credits,
  nextRenewalAt: '2026-03-01',
  uploadsBytes: 1_048_576,
});

const templateCreated = (templateId: string, orgId: string, overrides: Partial<TemplateCreated['data']> = {}): StreamEvent => [
  templateStream(templateId),
  createdTemplate({ templateId, orgId, tags: ['social'], createdAt: at(0), ...overrides }),
];
const onTemplate = (templateId: string, event: TemplateEvent): StreamEvent => [templateStream(templateId), event];
const onAccount = (orgId: string, event: AccountEvent): StreamEvent => [accountStream(orgId), event];

/** The row the templates projection writes for `templateCreated(...)` with no overrides. */
const createdRow = (templateId: string, orgId: string): Row => ({
  id: templateId,
  org_id: orgId,
  name: 'Card',
  editor: 'html-editor',
  width: 1200,
  height: 630,
  output_format: 'jpeg',
  quality: 80,
  scale_factor: 1,
  record_duration: null,
  fps: null,
  tags: ['social'],
  created_by: 'API',
  source_template_id: null,
  html: null,
  css: null,
  sample_data: null,
  merge_fields: [],
  components: null,
  properties: null,
  preview: null,
  deleted: false,
  revision: 0,
  version: 1,
  published_version: null,
  created_at: new Date(at(0)),
  updated_at: new Date(at(0)),
});

/**
 * Projection specs in emmett's style: given events already projected, when more events are
 * appended, then the read models hold exactly these rows (of the spec's organization).
 * Runs against a live projection set, so each spec also proves the live subscription delivers.
 */
const projectionSpec = (store: Store, projections: ProjectionSet) => (orgId: string) => {
  const appendAndProject = async (events: readonly StreamEvent[]) => {
    if (events.length === 0) return;
    const position = await appendAll(store.eventStore, orgId, events);
    expect(await projections.waitFor(position, 10_000)).toBe(true);
  };
  const keyOf = { templates: 'id', accounts: 'org_id', api_keys: 'id' } as const;
  const rowsOf = async (table: keyof typeof keyOf) =>
    (await store.sql.query(`select * from ${table} where org_id = $1 order by ${keyOf[table]}`, [orgId])).rows;

  return {
    given: (...given: StreamEvent[]) => ({
      when: (...when: StreamEvent[]) => ({
        /** Tables left out must hold no row of the organization. */
        then: async (expected: Partial<Record<'templates' | 'accounts' | 'api_keys', Row[]>>) => {
          await appendAndProject(given);
          await appendAndProject(when);
          expect({
            templates: await rowsOf('templates'),
            accounts: await rowsOf('accounts'),
            api_keys: await rowsOf('api_keys'),
          }).toEqual({ templates: [], accounts: [], api_keys: [], ...expected });
        },
      }),
    }),
  };
};

describe('projection specs (events -> read-model rows)', () => {
  let store: Store;
  let projections: ProjectionSet;
  let spec: ReturnType<typeof projectionSpec>;

  beforeAll(async () => {
    store = await openStore();
    projections = createProjectionSet({ orm: store.orm, eventStore: store.eventStore, logger });
    await projections.start();
    spec = projectionSpec(store, projections);
  });
  afterAll(async () => {
    await projections?.stop();
    await store?.close();
  });

  describe('templates', () => {
    it('TemplateCreated inserts a row with every field, at revision 0', async () => {
      const orgId = randomUUID();
      const templateId = randomUUID();
      await spec(orgId)
        .given()
        .when(templateCreated(templateId, orgId))
        .then({ templates: [createdRow(templateId, orgId)] });
    });

    it('TemplateCreated keeps video settings and a source template', async () => {
      const orgId = randomUUID();
      const templateId = randomUUID();
      const overrides = { editor: 'canvas-html', outputFormat: 'mp4', recordDuration: 7000, fps: 25, sourceTemplateId: 'tpl-source', scaleFactor: 1.5 } as const;
      await spec(orgId)
        .given()
        .when(templateCreated(templateId, orgId, overrides))
        .then({
          templates: [
            {
              ...createdRow(templateId, orgId),
              editor: 'canvas-html',
              output_format: 'mp4',
              record_duration: 7000,
              fps: 25,
              source_template_id: 'tpl-source',
              scale_factor: 1.5,
            },
          ],
        });
    });

    it('TemplateUpdated changes only the fields it carries, replaces the tag set and moves revision and updatedAt', async () => {
      const orgId = randomUUID();
      const templateId = randomUUID();
      await spec(orgId)
        .given(templateCreated(templateId, orgId, { tags: ['a', 'b'] }))
        .when(
          onTemplate(templateId, { type: 'TemplateUpdated', data: { templateId, changes: { name: 'Renamed', tags: ['c'] }, updatedAt: at(10) } }),
          onTemplate(templateId, { type: 'TemplateUpdated', data: { templateId, changes: { width: 800, outputFormat: 'png' }, updatedAt: at(20) } }),
        )
        .then({
          templates: [
            {
              ...createdRow(templateId, orgId),
              name: 'Renamed',
              tags: ['c'],
              width: 800,
              output_format: 'png',
              revision: 2,
              version: 3,
              updated_at: new Date(at(20)),
            },
          ],
        });
    });

    it('TemplateContentReplaced stores html, css, sample data and merge fields; a later replacement wins', async () => {
      const orgId = randomUUID();
      const templateId = randomUUID();
      await spec(orgId)
        .given(
          templateCreated(templateId, orgId),
          onTemplate(templateId, {
            type: 'TemplateContentReplaced',
            data: { templateId, html: '<p>{{old}}</p>', css: 'p{}', sampleData: { old: 1 }, mergeFields: ['old'], replacedAt: at(5) },
          }),
        )
        .when(
          onTemplate(templateId, {
            type: 'TemplateContentReplaced',
            data: {
              templateId,
              html: '<h1>{{title}}</h1>{{subtitle}}',
              css: 'h1 { color: red }',
              sampleData: { title: 'Hello', nested: { n: [1, 2] } },
              mergeFields: ['title', 'subtitle'],
              replacedAt: at(30),
            },
          }),
        )
        .then({
          templates: [
            {
              ...createdRow(templateId, orgId),
              html: '<h1>{{title}}</h1>{{subtitle}}',
              css: 'h1 { color: red }',
              sample_data: { title: 'Hello', nested: { n: [1, 2] } },
              merge_fields: ['title', 'subtitle'],
              revision: 2,
              version: 3,
              updated_at: new Date(at(30)),
            },
          ],
        });
    });

    it('TemplateDeleted keeps the row, marked deleted (soft delete)', async () => {
      const orgId = randomUUID();
      const templateId = randomUUID();
      await spec(orgId)
        .given(templateCreated(templateId, orgId))
        .when(onTemplate(templateId, { type: 'TemplateDeleted', data: { templateId, deletedAt: at(40) } }))
        .then({ templates: [{ ...createdRow(templateId, orgId), deleted: true, revision: 1, updated_at: new Date(at(40)) }] });
    });

    it('events of one template leave the other templates of the organization alone', async () => {
      const orgId = randomUUID();
      const [first, second] = [`a-${randomUUID()}`, `b-${randomUUID()}`];
      await spec(orgId)
        .given(templateCreated(first, orgId), templateCreated(second, orgId))
        .when(
          onTemplate(first, { type: 'TemplateUpdated', data: { templateId: first, changes: { name: 'Only me' }, updatedAt: at(3) } }),
          onTemplate(second, { type: 'TemplateDeleted', data: { templateId: second, deletedAt: at(4) } }),
        )
        .then({
          templates: [
            { ...createdRow(first, orgId), name: 'Only me', revision: 1, version: 2, updated_at: new Date(at(3)) },
            { ...createdRow(second, orgId), deleted: true, revision: 1, updated_at: new Date(at(4)) },
          ],
        });
    });

    it('an update of a template the read model never saw creates no row and does not stop the projection', async () => {
      const orgId = randomUUID();
      const ghost = randomUUID();
      const real = randomUUID();
      await spec(orgId)
        .given(onTemplate(ghost, { type: 'TemplateUpdated', data: { templateId: ghost, changes: { name: 'ghost' }, updatedAt: at(1) } }))
        .when(templateCreated(real, orgId))
        .then({ templates: [createdRow(real, orgId)] });
      expect(projections.isLive()).toBe(true);
    });
  });

  describe('accounts', () => {
    const keyIssued = (keyId: string, hash: string, scopes = [...API_KEY_SCOPES]): AccountEvent => ({
      type: 'ApiKeyIssued',
      data: { keyId, label: `label ${keyId}`, prefix: 'rk_abcdef', hash, scopes, issuedAt: at(2) },
    });
    const accountRow = (orgId: string): Row => ({
      org_id: orgId,
      name: 'Acme',
      plan_name: 'free',
      plan_status: 'active',
      credits_total: 500,
      credits_used: 0,
      renewal_amount: 500,
      next_renewal_at: '2026-03-01',
      // bigint columns come back from pg as text.
      uploads_used: '0',
      assets_bytes: '0',
      assets_version: 0,
      uploads_total: '1048576',
      api_key_in_query: true,
      created_at: new Date(at(1)),
    });
    const keyRow = (keyId: string, orgId: string, hash: string, overrides: Row = {}): Row => ({
      id: keyId,
      org_id: orgId,
      hash,
      prefix: 'rk_abcdef',
      label: `label ${keyId}`,
      scopes: [...API_KEY_SCOPES],
      test: false,
      revoked: false,
      created_at: new Date(at(2)),
      ...overrides,
    });
    const opened = (orgId: string): StreamEvent =>
      onAccount(orgId, { type: 'AccountOpened', data: { orgId, name: 'Acme', plan: plan(), openedAt: at(1) } });

    it('AccountOpened inserts the account with its plan, nothing used yet', async () => {
      const orgId = randomUUID();
      await spec(orgId).given().when(opened(orgId)).then({ accounts: [accountRow(orgId)] });
    });

    it('ApiKeyIssued inserts the key with its hash, prefix, label and scopes, not revoked', async () => {
      const orgId = randomUUID();
      const hash = sha256ApiKeyCodec.hash(`rk_${randomUUID()}`);
      await spec(orgId)
        .given(opened(orgId))
        .when(onAccount(orgId, keyIssued('key-1', hash, ['render'])))
        .then({ accounts: [accountRow(orgId)], api_keys: [keyRow('key-1', orgId, hash, { scopes: ['render'] })] });
    });

    it('ApiKeyRevoked marks only that key revoked', async () => {
      const orgId = randomUUID();
      const [kept, revoked] = [`key-a-${randomUUID()}`, `key-b-${randomUUID()}`];
      const [keptHash, revokedHash] = [sha256ApiKeyCodec.hash(randomUUID()), sha256ApiKeyCodec.hash(randomUUID())];
      await spec(orgId)
        .given(opened(orgId), onAccount(orgId, keyIssued(kept, keptHash)), onAccount(orgId, keyIssued(revoked, revokedHash)))
        .when(onAccount(orgId, { type: 'ApiKeyRevoked', data: { keyId: revoked, revokedAt: at(9) } }))
        .then({
          accounts: [accountRow(orgId)],
          api_keys: [keyRow(kept, orgId, keptHash), keyRow(revoked, orgId, revokedHash, { revoked: true })],
        });
    });
  });
});

describe('read-your-writes through the application services', () => {
  let runtime: Runtime;
  let sql: pg.Pool;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-service-ryw-'));
    const databaseUrl = await createTestDatabase();
    // Wired by the composition root exactly as the service is (rendering, which needs Temporal, aside).
    runtime = await createRuntime(loadConfig({ DATABASE_URL: databaseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), logger, { runProjections: true, rendering: 'off' });
    sql = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  });
  afterAll(async () => {
    await sql?.end();
    await runtime?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  /**
   * Every projection has applied the stream's last event the moment the command returned; the
   * checkpoints in the table follow (a projection the event does not concern writes its move with
   * others' a moment later).
   */
  const expectProjected = async (stream: string) => {
    const events = await runtime.eventStore.readStream(stream);
    const last = events.at(-1)?.position ?? Infinity;
    expect(runtime.projections.runners.map((runner) => runner.name).sort()).toEqual(allProjections.map((projection) => projection.name).sort());
    for (const runner of runtime.projections.runners) expect(runner.position(), runner.name).toBeGreaterThanOrEqual(last);
    await vi.waitFor(async () => {
      const checkpoints = (await sql.query<{ name: string; position: string }>('select name, position from projection_checkpoints')).rows;
      expect(checkpoints.map((row) => row.name).sort()).toEqual(allProjections.map((projection) => projection.name).sort());
      for (const checkpoint of checkpoints) expect(Number(checkpoint.position)).toBeGreaterThanOrEqual(last);
    });
  };

  const templateRow = async (templateId: string) => (await sql.query('select * from templates where id = $1', [templateId])).rows[0];

  it('sees an organization, its key and a revocation as soon as each command returns', async () => {
    const { accounts } = runtime.services;
    const orgId = await accounts.openOrganization({ name: 'Readers' });
    expect((await sql.query('select name from accounts where org_id = $1', [orgId])).rows).toEqual([{ name: 'Readers' }]);
    await expectProjected(accountStream(orgId));

    const issued = await accounts.issueApiKey(orgId, { label: 'fresh' });
    expect(await accounts.authenticate(issued.key)).toMatchObject({ orgId, actor: issued.keyId });
    await expectProjected(accountStream(orgId));

    await accounts.revokeApiKey(orgId, issued.keyId);
    expect(await accounts.authenticate(issued.key)).toBeNull();
    expect((await sql.query('select revoked from api_keys where id = $1', [issued.keyId])).rows).toEqual([{ revoked: true }]);
  });

  it('sees every template command in the read model the moment it returns, many times over', async () => {
    const { accounts, templates } = runtime.services;
    const orgId = await accounts.openOrganization({ name: 'Writers' });
    const caller = await accounts.authenticate((await accounts.issueApiKey(orgId, { label: 'writer' })).key);
    expect(caller).not.toBeNull();
    const context: RequestContext = { caller: caller ?? systemContext(orgId).caller, correlationId: randomUUID() };

    for (let round = 0; round < 15; round++) {
      const created = await templates.create(context, { name: `Round ${round}`, width: 100 + round, height: 100, editor: 'html-editor' });
      expect(await templateRow(created.identifier)).toMatchObject({ name: `Round ${round}`, width: 100 + round, revision: 0, deleted: false });
      await expectProjected(templateStream(created.identifier));

      await templates.update(context, created.identifier, { name: `Round ${round} renamed`, tags: [`r${round}`] });
      expect(await templateRow(created.identifier)).toMatchObject({ name: `Round ${round} renamed`, tags: [`r${round}`], revision: 1 });

      await templates.replaceHtmlContent(context, created.identifier, { html: `<p>{{field${round}}}</p>` });
      expect(await templateRow(created.identifier)).toMatchObject({ html: `<p>{{field${round}}}</p>`, merge_fields: [`field${round}`], revision: 2 });

      const listed = await templates.list(context, { page: 0, size: 50, tags: [`r${round}`] });
      expect(listed.map((template) => template.identifier)).toEqual([created.identifier]);

      if (round % 3 === 0) {
        await templates.remove(context, created.identifier);
        expect(await templateRow(created.identifier)).toMatchObject({ deleted: true, revision: 3 });
        await expectProjected(templateStream(created.identifier));
        await expect(templates.get(context, created.identifier)).rejects.toMatchObject({ code: 'not_found' });
      }
    }
    expect(await templates.list(context, { page: 0, size: 50 })).toHaveLength(10);
  });
});

/**
 * A history touching every event type of both projections, across organizations, with templates
 * interleaved (so positions of one stream are not contiguous).
 */
const scriptedHistory = (): { orgId: string; events: StreamEvent[] }[] => {
  const orgs = ['org-a', 'org-b', 'org-c'].map((name) => `${name}-${randomUUID()}`);
  return orgs.map((orgId, orgIndex) => {
    const events: StreamEvent[] = [
      onAccount(orgId, { type: 'AccountOpened', data: { orgId, name: `Org ${orgIndex}`, plan: plan(100 * (orgIndex + 1)), openedAt: at(orgIndex) } }),
    ];
    for (let key = 0; key < 2; key++) {
      events.push(
        onAccount(orgId, {
          type: 'ApiKeyIssued',
          data: { keyId: `${orgId}-key-${key}`, label: `key ${key}`, prefix: `rk_${key}`, hash: sha256ApiKeyCodec.hash(`${orgId}-${key}`), scopes: ['templates'], issuedAt: at(10 + key) },
        }),
      );
    }
    if (orgIndex === 1) events.push(onAccount(orgId, { type: 'ApiKeyRevoked', data: { keyId: `${orgId}-key-0`, revokedAt: at(20) } }));
    // Usage counters are increments, the kind of update a replay gets wrong if it is not exact.
    for (let charge = 1; charge <= 3; charge++) {
      events.push(onAccount(orgId, { type: 'CreditsCharged', data: { requestId: `${orgId}-render-${charge}`, amount: charge * 10, chargedAt: at(20 + charge) } }));
    }
    events.push(onAccount(orgId, { type: 'CreditsRefunded', data: { requestId: `${orgId}-render-2`, amount: 20, refundedAt: at(25) } }));
    const templateIds = [0, 1, 2, 3].map((index) => `${orgId}-tpl-${index}`);
    for (const [index, templateId] of templateIds.entries()) {
      events.push(templateCreated(templateId, orgId, { name: `T${index}`, tags: [`t${index}`], editor: index === 3 ? 'canvas-html' : 'html-editor', outputFormat: index === 3 ? 'webm' : 'jpeg', recordDuration: index === 3 ? 5000 : null, fps: index === 3 ? 30 : null, createdAt: at(30 + index) }));
    }
    for (const [index, templateId] of templateIds.entries()) {
      events.push(onTemplate(templateId, { type: 'TemplateUpdated', data: { templateId, changes: { name: `T${index}'`, quality: 50 + index }, updatedAt: at(40 + index) } }));
      if (index < 3) {
        events.push(
          onTemplate(templateId, {
            type: 'TemplateContentReplaced',
            data: { templateId, html: `<b>{{v${index}}}</b>`, css: '', sampleData: { [`v${index}`]: index }, mergeFields: [`v${index}`], replacedAt: at(50 + index) },
          }),
        );
      }
    }
    events.push(onTemplate(templateIds[1] ?? '', { type: 'TemplateUpdated', data: { templateId: templateIds[1] ?? '', changes: { tags: ['x', 'y'] }, updatedAt: at(60) } }));
    events.push(onTemplate(templateIds[2] ?? '', { type: 'TemplateDeleted', data: { templateId: templateIds[2] ?? '', deletedAt: at(70) } }));
    return { orgId, events };
  });
};

describe('rebuild from position 0', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore();
  });
  afterAll(async () => {
    await store?.close();
  });

  it('gives the same rows, live or caught up, in one pass or in small batches', async () => {
    const live = createProjectionSet({ orm: store.orm, eventStore: store.eventStore, logger });
    await live.start();
    // Interleave the organizations' histories so streams' positions are scattered over the log.
    const histories = scriptedHistory();
    const longest = Math.max(...histories.map((history) => history.events.length));
    for (let step = 0; step < longest; step++) {
      for (const { orgId, events } of histories) {
        const event = events[step];
        if (event) await appendAll(store.eventStore, orgId, [event]);
      }
    }
    const end = await lastPosition(store.sql);
    expect(await live.waitFor(end, 10_000)).toBe(true);
    await live.stop();
    const projectedLive = await dump(store.sql);

    // The history was really projected: 3 accounts, 6 keys (1 revoked), 12 templates (3 deleted).
    const { accounts = [], api_keys: keys = [], templates = [], projection_checkpoints: checkpoints } = projectedLive;
    expect(accounts).toHaveLength(3);
    expect(keys).toHaveLength(6);
    expect(keys.filter((row) => row.revoked)).toHaveLength(1);
    expect(templates).toHaveLength(12);
    expect(templates.filter((row) => row.deleted)).toHaveLength(3);
    expect(templates.filter((row) => row.html !== null)).toHaveLength(9);
    // 10 + 20 + 30 charged, 20 refunded.
    expect(accounts.map((row) => row.credits_used)).toEqual([40, 40, 40]);
    expect(checkpoints).toEqual(
      allProjections.map((projection) => ({ name: projection.name, position: String(end) })).sort((a, b) => a.name.localeCompare(b.name)),
    );

    // Whatever tables later migrations add are part of the dump too.
    expect(Object.keys(projectedLive)).toEqual(expect.arrayContaining(['accounts', 'api_keys', 'projection_checkpoints', 'templates']));
    await truncateReadModels(store.sql);
    const emptied = await dump(store.sql);
    expect(Object.values(emptied).every((rows) => rows.length === 0)).toBe(true);

    const rebuilt = createProjectionSet({ orm: store.orm, eventStore: store.eventStore, logger });
    await rebuilt.start();
    expect(rebuilt.runners.map((runner) => runner.position())).toEqual(allProjections.map(() => end));
    await rebuilt.stop();
    expect(await dump(store.sql)).toEqual(projectedLive);

    // Batch boundaries falling inside streams change nothing either.
    await truncateReadModels(store.sql);
    const smallBatches = allProjections.map((projection) => createProjectionRunner({ orm: store.orm, eventStore: store.eventStore, logger, projection, batchSize: 2 }));
    for (const runner of smallBatches) await runner.start();
    for (const runner of smallBatches) await runner.stop();
    expect(await dump(store.sql)).toEqual(projectedLive);
  });

  it('a restarted projection set resumes from its checkpoint and applies nothing twice', async () => {
    const before = await dump(store.sql);
    expect(before.templates?.length ?? 0).toBeGreaterThan(0);
    const applied: number[] = [];
    const counting: Projection = { name: 'templates', apply: async (_em, events) => void applied.push(...events.map((event) => event.position)) };
    const resumed = createProjectionSet({ orm: store.orm, eventStore: store.eventStore, logger }, [counting]);
    await resumed.start();
    await resumed.stop();
    // The templates checkpoint is at the end of the log: catching up re-applies nothing.
    expect(applied).toEqual([]);
    expect(await dump(store.sql)).toEqual(before);
  });
});

describe('a runner that finds its checkpoint moved on by another instance', () => {
  it('applies nothing the other applied and never moves the checkpoint back to a batch it is handed late', async () => {
    const store = await openStore();
    try {
      const orgId = `late-${randomUUID()}`;
      const templateIds = [1, 2, 3, 4].map((index) => `late-${index}-${randomUUID()}`);
      for (const templateId of templateIds) await appendAll(store.eventStore, orgId, [templateCreated(templateId, orgId)]);
      const events = await store.eventStore.readAll({ after: null, limit: 10 });
      // Its subscription hands over one event at a time, when the test says.
      let deliver: (page: RecordedEvent[]) => Promise<void> = async () => {};
      const lateStore: EventStore = {
        ...store.eventStore,
        readAll: async () => [],
        subscribeToAll: (_after, handler) => {
          deliver = handler;
          return { stop: async () => {}, done: new Promise(() => {}) };
        },
      };
      const runner = createProjectionRunner({ orm: store.orm, eventStore: lateStore, logger, projection: documentStore(templatesProjection) });
      await runner.start();
      const checkpoint = async () => Number((await store.sql.query<{ position: string }>(`select position from projection_checkpoints where name = 'templates'`)).rows[0]?.position);
      // Another instance applied the first three events meanwhile.
      const third = events[2]?.position ?? Number.NaN;
      await store.sql.query(`update projection_checkpoints set position = $1 where name = 'templates'`, [third]);

      const seen: number[] = [];
      for (const event of events) {
        await deliver([event]);
        seen.push(await checkpoint());
      }

      expect(seen).toEqual([third, third, third, events[3]?.position]);
      expect((await store.sql.query<{ id: string }>('select id from templates')).rows.map((row) => row.id)).toEqual([templateIds[3]]);
      await runner.stop();
    } finally {
      await store.close();
    }
  });
});

describe('two service instances projecting the same database at once', () => {
  const APPLIED_TABLE = `${TEST_TABLE_PREFIX}projection_applications`;
  let databaseUrl: string;
  let instances: { store: Store; projections: ProjectionSet }[] = [];

  /** Records every application (inside the runner's transaction), so a double application is visible. */
  const countingProjection = (instance: string): Projection => ({
    name: 'spec-counting',
    async apply(em, events) {
      for (const event of events) await em.execute(`insert into ${APPLIED_TABLE} (position, instance) values (?, ?)`, [event.position, instance], 'run');
    },
  });

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    for (const name of ['instance-a', 'instance-b']) {
      // Separate pools and ORMs, as two processes would have.
      const store = await openStore(databaseUrl);
      if (instances.length === 0) {
        await store.sql.query(`create table ${APPLIED_TABLE} (seq bigserial primary key, position bigint not null, instance text not null)`);
      }
      const projections = createProjectionSet({ orm: store.orm, eventStore: store.eventStore, logger }, [...allProjections, countingProjection(name)]);
      instances.push({ store, projections });
    }
  });
  afterAll(async () => {
    for (const { store, projections } of instances) {
      await projections.stop();
      await store.close();
    }
    instances = [];
  });

  it('applies each event exactly once, in order, with checkpoints that only move forward', async () => {
    const [first, second] = instances;
    if (!first || !second) throw new Error('instances did not start');
    await Promise.all(instances.map(({ projections }) => projections.start()));

    // Sample the checkpoints from outside while the instances work.
    const samples = new Map<string, number[]>();
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        for (const row of (await first.store.sql.query<{ name: string; position: string }>('select name, position from projection_checkpoints')).rows) {
          samples.set(row.name, [...(samples.get(row.name) ?? []), Number(row.position)]);
        }
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
    })();

    // Both instances write at the same time; each of their subscriptions sees every event.
    const templatesPerWriter = 12;
    const chargesPerWriter = 10;
    const writer = async ({ store }: { store: Store }, label: string) => {
      const orgId = `${label}-${randomUUID()}`;
      await appendAll(store.eventStore, orgId, [onAccount(orgId, { type: 'AccountOpened', data: { orgId, name: label, plan: plan(), openedAt: at(0) } })]);
      // Charges increment a counter: applied twice, the sum would show it.
      const charges = Array.from({ length: chargesPerWriter }, (_, index) =>
        appendAll(store.eventStore, orgId, [
          onAccount(orgId, { type: 'CreditsCharged', data: { requestId: `${label}-${index}`, amount: index + 1, chargedAt: at(index) } }),
        ]),
      );
      const templates = Array.from({ length: templatesPerWriter }, (_, index) => {
        const templateId = `${label}-${index}-${randomUUID()}`;
        return appendAll(store.eventStore, orgId, [
          templateCreated(templateId, orgId, { name: `${label} ${index}` }),
          onTemplate(templateId, { type: 'TemplateUpdated', data: { templateId, changes: { width: 10 + index }, updatedAt: at(1) } }),
          onTemplate(templateId, { type: 'TemplateUpdated', data: { templateId, changes: { height: 20 + index }, updatedAt: at(2) } }),
        ]);
      });
      await Promise.all([...charges, ...templates]);
    };
    await Promise.all([writer(first, 'a'), writer(second, 'b')]);
    const end = await lastPosition(first.store.sql);
    const reached = await Promise.all(instances.map(({ projections }) => projections.waitFor(end, 15_000)));
    sampling = false;
    await sampler;
    expect(reached).toEqual([true, true]);
    expect(instances.map(({ projections }) => projections.isLive())).toEqual([true, true]);

    const eventCount = Number((await first.store.sql.query<{ count: string }>('select count(*) from events')).rows[0]?.count);
    expect(eventCount).toBe(2 * (1 + chargesPerWriter + 3 * templatesPerWriter));
    const applications = (await first.store.sql.query<{ position: string; instance: string }>(`select position, instance from ${APPLIED_TABLE} order by seq`)).rows;
    const positions = applications.map((row) => Number(row.position));
    // Once each: as many applications as events, no position twice, and in log order.
    expect(positions).toHaveLength(eventCount);
    expect(new Set(positions).size).toBe(eventCount);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(positions.at(-1)).toBe(end);

    // Rows are not doubled and updates landed once: each template at revision 2 with both changes.
    const rows = (await first.store.sql.query<{ name: string; width: number; height: number; revision: number }>('select name, width, height, revision from templates')).rows;
    expect(rows).toHaveLength(2 * templatesPerWriter);
    for (const row of rows) {
      const index = Number(row.name.split(' ')[1]);
      expect(row).toMatchObject({ width: 10 + index, height: 20 + index, revision: 2 });
    }
    // 1 + 2 + ... + 10 per account, not a multiple of it.
    expect((await first.store.sql.query('select credits_used from accounts')).rows).toEqual([{ credits_used: 55 }, { credits_used: 55 }]);

    for (const name of [...allProjections.map((projection) => projection.name), 'spec-counting']) {
      const seen = samples.get(name) ?? [];
      expect(seen.length, `samples of ${name}`).toBeGreaterThan(0);
      expect(seen, `checkpoint of ${name} moved backwards`).toEqual([...seen].sort((a, b) => a - b));
    }
    await vi.waitFor(async () => {
      const finalCheckpoints = (await first.store.sql.query<{ name: string; position: string }>('select name, position from projection_checkpoints')).rows;
      for (const checkpoint of finalCheckpoints) expect(Number(checkpoint.position), checkpoint.name).toBe(end);
    });

    // And what two instances built together equals what one builds alone from 0.
    const together = await dump(first.store.sql);
    await Promise.all(instances.map(({ projections }) => projections.stop()));
    await truncateReadModels(first.store.sql);
    const alone = createProjectionSet({ orm: first.store.orm, eventStore: first.store.eventStore, logger });
    await alone.start();
    await alone.stop();
    const rebuilt = await dump(first.store.sql);
    const { projection_checkpoints: rebuiltCheckpoints, ...rebuiltRows } = rebuilt;
    const { projection_checkpoints: togetherCheckpoints, ...togetherRows } = together;
    expect(rebuiltRows).toEqual(togetherRows);
    // The counting projection is not part of the rebuild; every real one ends at the same place.
    expect(rebuiltCheckpoints).toEqual(togetherCheckpoints?.filter((row) => row.name !== 'spec-counting'));
  });
});

describe('a batch written where its runner left the checkpoint (applierAtCheckpoint)', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore();
  });
  afterAll(async () => {
    await store?.close();
  });

  const creditsUsed = async (orgId: string) => (await store.sql.query('select credits_used from accounts where org_id = $1', [orgId])).rows[0]?.credits_used;
  const checkpointOf = async (name: string) => Number((await store.sql.query('select position from projection_checkpoints where name = $1', [name])).rows[0]?.position);

  it('writes the rows with the checkpoint only while the checkpoint stands where the batch was read from, so no batch lands twice', async () => {
    const accounts = allProjections.find((projection) => projection.name === 'accounts');
    const applyAtCheckpoint = accounts?.applierAtCheckpoint?.();
    if (!accounts || !applyAtCheckpoint) throw new Error('the accounts projection writes no batch at its checkpoint');
    const orgId = `gated-${randomUUID()}`;
    await appendAll(store.eventStore, orgId, [onAccount(orgId, { type: 'AccountOpened', data: { orgId, name: 'Gated', plan: plan(), openedAt: at(0) } })]);
    // Projected by a set that then stops: the checkpoint stands at the end of the log.
    const set = createProjectionSet({ orm: store.orm, eventStore: store.eventStore, logger }, [accounts]);
    await set.start();
    await set.stop();
    const left = await lastPosition(store.sql);
    expect(await checkpointOf('accounts')).toBe(left);

    const charged = await appendAll(store.eventStore, orgId, [onAccount(orgId, { type: 'CreditsCharged', data: { requestId: 'gated-1', amount: 3, chargedAt: at(1) } })]);
    const batch = await store.eventStore.readAll({ after: left, limit: 10 });
    const apply = (from: number) => applyAtCheckpoint(store.orm.em.fork(), batch, { name: 'accounts', from, to: charged });

    // Read from a checkpoint that is not where it stands (another instance moved it): nothing is written.
    expect(await apply(left - 1)).toBeNull();
    expect(await creditsUsed(orgId)).toBe(0);
    expect(await checkpointOf('accounts')).toBe(left);

    // It answers the rows it wrote: the in-process account cache takes them as they are.
    const written = await apply(left);
    expect(written?.find((change) => change.entity === AccountRow)?.upserts.get(orgId)).toMatchObject({ orgId, creditsUsed: 3 });
    expect(await creditsUsed(orgId)).toBe(3);
    expect(await checkpointOf('accounts')).toBe(charged);

    // The same batch again, as from a runner that lost the race for it: it does not land twice.
    expect(await apply(left)).toBeNull();
    expect(await creditsUsed(orgId)).toBe(3);
    expect(await checkpointOf('accounts')).toBe(charged);
  });

  /** An organization's account projected by a set that then stops, with the checkpoint at the end of the log. */
  const projectedAccount = async () => {
    const accounts = allProjections.find((projection) => projection.name === 'accounts');
    if (!accounts?.applierAtCheckpoint) throw new Error('the accounts projection writes no batch at its checkpoint');
    const orgId = `remembered-${randomUUID()}`;
    await appendAll(store.eventStore, orgId, [onAccount(orgId, { type: 'AccountOpened', data: { orgId, name: 'Remembered', plan: plan(), openedAt: at(0) } })]);
    const set = createProjectionSet({ orm: store.orm, eventStore: store.eventStore, logger }, [accounts]);
    await set.start();
    await set.stop();
    return { orgId, applier: () => accounts.applierAtCheckpoint!(), left: await lastPosition(store.sql) };
  };
  /** Appends a charge and applies it from `from` with `apply`; its position and whether it was written. */
  const charge = async (apply: ApplyAtCheckpoint, orgId: string, from: number, amount: number) => {
    const to = await appendAll(store.eventStore, orgId, [onAccount(orgId, { type: 'CreditsCharged', data: { requestId: randomUUID(), amount, chargedAt: at(1) } })]);
    const batch = await store.eventStore.readAll({ after: from, limit: 10 });
    return { to, written: (await apply(store.orm.em.fork(), batch, { name: 'accounts', from, to })) !== null };
  };
  const nameOf = async (orgId: string) => (await store.sql.query('select name from accounts where org_id = $1', [orgId])).rows[0]?.name;

  it('folds the next batch from the rows its last batch wrote, without reading them back, while the checkpoint stays where it left it', async () => {
    const { orgId, applier, left } = await projectedAccount();
    const apply = applier();
    const first = await charge(apply, orgId, left, 2);
    expect(first.written).toBe(true);
    // Changed behind the runner's back (no runner writes without moving the checkpoint): the next batch does not see it...
    await store.sql.query("update accounts set name = 'Changed behind its back' where org_id = $1", [orgId]);
    const second = await charge(apply, orgId, first.to, 3);
    expect(second.written).toBe(true);
    expect(await creditsUsed(orgId)).toBe(5);
    // ...because it wrote the row it remembered.
    expect(await nameOf(orgId)).toBe('Remembered');
    // A runner that remembers nothing reads the row as it stands.
    await store.sql.query("update accounts set name = 'Changed behind its back' where org_id = $1", [orgId]);
    expect((await charge(applier(), orgId, second.to, 1)).written).toBe(true);
    expect(await nameOf(orgId)).toBe('Changed behind its back');
    expect(await creditsUsed(orgId)).toBe(6);
  });

  it('forgets its rows once a rebuild swapped in tables of its own, even with the checkpoint at the same position', async () => {
    const { orgId, applier, left } = await projectedAccount();
    const apply = applier();
    const first = await charge(apply, orgId, left, 2);
    expect(first.written).toBe(true);
    await createRebuilder({ orm: store.orm, databaseUrl: store.url, eventStore: store.eventStore, logger }).swap();
    expect(await checkpointOf('accounts')).toBe(first.to);
    // The rebuilt row, changed so that a write from the remembered row would show.
    await store.sql.query("update accounts set name = 'Rebuilt' where org_id = $1", [orgId]);
    const refused = await charge(apply, orgId, first.to, 3);
    expect(refused.written).toBe(false);
    expect(await creditsUsed(orgId)).toBe(2);
    // Having forgotten, it reads the swapped-in row and goes on from there.
    const batch = await store.eventStore.readAll({ after: first.to, limit: 10 });
    expect(await apply(store.orm.em.fork(), batch, { name: 'accounts', from: first.to, to: refused.to })).not.toBeNull();
    expect(await creditsUsed(orgId)).toBe(5);
    expect(await nameOf(orgId)).toBe('Rebuilt');
  });
});
