import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventStore } from '../../application/ports/event-store.js';
import { API_KEY_SCOPES } from '../../domain/accounts/account-events.js';
import type { EventEnvelope } from '../../domain/shared/events.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { eventSchemaRegistry, EventSchemaViolation } from '../../infrastructure/event-schemas/event-schema-registry.js';
import { createChainChecker } from '../../infrastructure/event-store/event-chain.js';
import { createPostgresEventStore } from '../../infrastructure/event-store/postgres-event-store.js';
import { createProjectionSet } from '../../infrastructure/projections/projection-set.js';
import { openReadModels } from '../../infrastructure/read-models/orm.js';
import { insertStoredEvents, legacyEvents } from '../fixtures/legacy-event-log.js';
import { createTestDatabase } from '../support/database.js';

const logger = createLogger('silent');

const metadata = (orgId = 'org-schemas') => ({
  eventId: randomUUID(),
  schemaVersion: 1,
  occurredAt: '2026-01-01T00:00:00.000Z',
  orgId,
  actor: 'system',
  correlationId: 'c',
  causationId: 'c',
});

const keyIssued = (data: Record<string, unknown>) =>
  ({ type: 'ApiKeyIssued', data: { keyId: 'k1', label: 'ci', prefix: 'rk_1', hash: 'a'.repeat(64), scopes: ['render'], issuedAt: '2026-01-01T00:00:00.000Z', ...data }, metadata: metadata() }) as EventEnvelope;

describe('event schema registry', () => {
  it('stamps the current version on append and keeps the data as given', () => {
    const prepared = eventSchemaRegistry.prepare(keyIssued({ note: 'extra fields are kept, not stripped' }));
    expect(prepared.metadata.schemaVersion).toBe(3);
    expect(prepared.data).toMatchObject({ scopes: ['render'], note: 'extra fields are kept, not stripped' });
    const deleted = eventSchemaRegistry.prepare({ type: 'ResultDeleted', data: { requestId: 'r', deletedAt: '2026-01-01T00:00:00Z' }, metadata: metadata() } as EventEnvelope);
    expect(deleted.metadata.schemaVersion).toBe(1);
  });

  it('rejects data that does not fit the current schema, naming each problem, and unknown types', () => {
    const bad = () => eventSchemaRegistry.prepare(keyIssued({ scopes: ['everything'], issuedAt: 'yesterday' }));
    expect(bad).toThrow(EventSchemaViolation);
    expect(bad).toThrow(/data\.scopes\.0.*data\.issuedAt|data\.issuedAt.*data\.scopes\.0/);
    expect(() => eventSchemaRegistry.prepare({ type: 'NoSuchEvent', data: {}, metadata: metadata() } as unknown as EventEnvelope)).toThrow(
      /no schema is registered/,
    );
  });

  it('upcasts step by step to the current version and leaves current events alone', () => {
    const recorded = { ...keyIssued({}), streamName: 'account-x', revision: 1, position: 9 };
    const { scopes: _scopes, ...v1Data } = recorded.data as Record<string, unknown>;
    const upcast = eventSchemaRegistry.upcast({ ...recorded, data: v1Data });
    expect(upcast.data).toMatchObject({ scopes: [...API_KEY_SCOPES] });
    expect(upcast.metadata.schemaVersion).toBe(3);
    const current = { ...recorded, metadata: { ...recorded.metadata, schemaVersion: 3 } };
    expect(eventSchemaRegistry.upcast(current)).toBe(current);
  });

  it('gives the admin scope to v2 keys that held every scope of their time, and to no narrower key', () => {
    const v2 = (scopes: string[]) => ({ ...keyIssued({ scopes }), metadata: { ...metadata(), schemaVersion: 2 }, streamName: 'account-x', revision: 1, position: 9 });
    expect(eventSchemaRegistry.upcast(v2(['render', 'templates', 'audit'])).data).toMatchObject({ scopes: ['render', 'templates', 'audit', 'admin'] });
    expect(eventSchemaRegistry.upcast(v2(['render'])).data).toMatchObject({ scopes: ['render'] });
    expect(eventSchemaRegistry.upcast(v2(['render', 'templates'])).data).toMatchObject({ scopes: ['render', 'templates'] });
  });
});

describe('a store with schemas', () => {
  let databaseUrl: string;
  let store: EventStore;
  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    store = await createPostgresEventStore({ connectionString: databaseUrl, schemas: eventSchemaRegistry });
  });
  afterAll(async () => {
    await store?.close();
  });

  it('refuses an invalid event and stores nothing of its append', async () => {
    const valid = keyIssued({});
    const invalid = keyIssued({ keyId: '' });
    await expect(store.append('account-refused', [valid, invalid], 'no-stream')).rejects.toThrow(EventSchemaViolation);
    expect(await store.readStream('account-refused')).toEqual([]);
    await store.append('account-accepted', [valid], 'no-stream');
    expect((await store.readStream('account-accepted'))[0]?.metadata.schemaVersion).toBe(3);
  });

  it('replays a fixture log of older versions as current events into the read models', async () => {
    const fixture = await legacyEvents();
    await insertStoredEvents(databaseUrl, fixture);

    const key = (await store.readStream('account-org-legacy')).find((event) => event.type === 'ApiKeyIssued');
    expect(key?.data).toMatchObject({ keyId: 'key-legacy', scopes: [...API_KEY_SCOPES] });
    expect(key?.metadata.schemaVersion).toBe(3);
    const [created] = await store.readStream('template-tpl-legacy');
    expect(created?.data).toMatchObject({ tags: [], recordDuration: null, fps: null, sourceTemplateId: null });
    const completed = (await store.readStream('render-req-legacy')).at(-1);
    expect(completed?.data).toMatchObject({ cached: false, sourceRequestId: null });

    // As stored, nothing changed: the log is never rewritten, and its events predate hash chains.
    const asStored = (await store.readAll({ after: null, limit: 100, asStored: true })).filter((event) => event.streamName.endsWith('legacy'));
    expect(asStored.map(({ streamName, type, data }) => ({ streamName, type, data }))).toEqual(fixture.map(({ streamName, type, data }) => ({ streamName, type, data })));
    const checker = createChainChecker();
    expect(asStored.map((event) => checker.check(event))).toEqual(asStored.map(() => null));
    expect(checker.unchained()).toBe(fixture.length);

    const orm = await openReadModels(databaseUrl);
    const projections = createProjectionSet({ orm, eventStore: store, logger });
    await projections.start();
    await projections.stop();
    await orm.close();
    const sql = new pg.Client({ connectionString: databaseUrl });
    await sql.connect();
    try {
      expect((await sql.query("select scopes, revoked from api_keys where id = 'key-legacy'")).rows).toEqual([{ scopes: [...API_KEY_SCOPES], revoked: false }]);
      expect((await sql.query("select tags, fps, record_duration, html from templates where id = 'tpl-legacy'")).rows).toEqual([
        { tags: [], fps: null, record_duration: null, html: '<h1>{{title}}</h1>' },
      ]);
      expect((await sql.query("select status, cached, bytes from results where request_id = 'req-legacy'")).rows).toEqual([
        { status: 'done', cached: false, bytes: '2048' },
      ]);
      expect((await sql.query("select credits_used, uploads_used from accounts where org_id = 'org-legacy'")).rows).toEqual([
        { credits_used: 1, uploads_used: '2048' },
      ]);
    } finally {
      await sql.end();
    }
  });

  it('continues a legacy stream with a chain that starts at its first hashed event', async () => {
    await store.append('template-tpl-legacy', [{ type: 'TemplateDeleted', data: { templateId: 'tpl-legacy', deletedAt: '2026-01-01T00:00:00.000Z' }, metadata: metadata('org-legacy') } as EventEnvelope], 1);
    const stream = await store.readStream('template-tpl-legacy');
    expect(stream.at(-1)?.metadata).toMatchObject({ previousHash: null, hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const checker = createChainChecker();
    expect((await store.readAll({ after: null, limit: 100, asStored: true })).map((event) => checker.check(event)).filter(Boolean)).toEqual([]);
  });
});
