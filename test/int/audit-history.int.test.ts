import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditService, type AuditService } from '../../application/audit/audit-service.js';
import type { HistoryRow } from '../../application/audit/history.js';
import type { EventStore } from '../../application/ports/event-store.js';
import type { RequestContext } from '../../application/shared/request-context.js';
import { createEventIntegrity } from '../../infrastructure/audit/event-integrity.js';
import { createLedgerReadModel } from '../../infrastructure/audit/ledger-read-model.js';
import { eventSchemaRegistry } from '../../infrastructure/event-schemas/event-schema-registry.js';
import { createPostgresEventStore } from '../../infrastructure/event-store/postgres-event-store.js';
import { insertStoredEvents, legacyEvents } from '../fixtures/legacy-event-log.js';
import { at, writeScriptedHistory, type ScriptedHistory } from '../fixtures/scripted-history.js';
import { writeLedgerHistory, type LedgerHistory } from '../fixtures/ledger-history.js';
import { createTestDatabase } from '../support/database.js';

let eventStore: EventStore;
let audit: AuditService;
let history: ScriptedHistory;
let other: ScriptedHistory;
let ledgered: LedgerHistory;
let databaseUrl: string;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  eventStore = await createPostgresEventStore({ connectionString: databaseUrl, schemas: eventSchemaRegistry });
  audit = createAuditService({ eventStore, integrity: createEventIntegrity(), ledger: createLedgerReadModel(databaseUrl) });
  history = await writeScriptedHistory(eventStore);
  // Another organization's history interleaves nothing into this one's rows.
  other = await writeScriptedHistory(eventStore);
  // Charges in ledger streams, and a batch.
  ledgered = await writeLedgerHistory(eventStore);
});
afterAll(async () => {
  await eventStore?.close();
});

const replay = async (filter: Parameters<AuditService['replayHistory']>[0]) => {
  const rows: HistoryRow[] = [];
  for await (const row of audit.replayHistory(filter)) rows.push(row);
  return rows;
};

const byRequest = (rows: readonly HistoryRow[]) => new Map(rows.map((row) => [row.requestId, row]));

const context = (scopes: RequestContext['caller']['scopes'], orgId = history.orgId): RequestContext => ({
  caller: { orgId, actor: history.keys.auditor, scopes },
  correlationId: 'test',
});

describe('audit history replayed from the event log', () => {
  it('gives one row per render or capture of the organization with everything that happened to it', async () => {
    const rows = await replay({ orgId: history.orgId });
    const { requests, keys } = history;
    expect(rows.map((row) => row.requestId).sort()).toEqual(Object.values(requests).sort());
    const row = byRequest(rows);

    expect(row.get(requests.rendered)).toEqual({
      requestId: requests.rendered,
      kind: 'render',
      orgId: history.orgId,
      actor: keys.renderer,
      correlationId: requests.rendered,
      requestedAt: at(100),
      batch: null,
      template: { id: history.templateId, revision: 1, version: null, name: 'Card' },
      url: null,
      format: 'png',
      data: { title: 'First' },
      request: { template: history.templateId, data: { title: 'First' } },
      dataFrom: null,
      status: 'done',
      states: [
        { state: 'requested', at: at(100) },
        { state: 'completed', at: at(102) },
      ],
      failureReason: null,
      file: { storageKey: `org/${requests.rendered}/card.png`, bytes: 1500, contentType: 'image/png', cached: false, sourceRequestId: null },
      credits: { charged: 1, refunded: 0, movements: [{ kind: 'charged', amount: 1, at: at(101) }] },
      webhooks: [
        { deliveryId: `delivery-${requests.rendered}`, url: 'https://hooks.example.com/a', attempt: 1, outcome: 'failed', statusCode: 500, error: 'HTTP 500', at: at(103) },
        { deliveryId: `delivery-${requests.rendered}`, url: 'https://hooks.example.com/a', attempt: 2, outcome: 'failed', statusCode: null, error: 'connection refused', at: at(105) },
        { deliveryId: `delivery-${requests.rendered}`, url: 'https://hooks.example.com/a', attempt: 3, outcome: 'delivered', statusCode: 204, error: null, at: at(109) },
      ],
      deletedAt: null,
      position: expect.any(Number),
    });

    expect(row.get(requests.cached)).toMatchObject({
      status: 'done',
      file: { cached: true, sourceRequestId: requests.rendered, bytes: 1500 },
      credits: { charged: 0, refunded: 0, movements: [] },
      webhooks: [],
    });
    expect(row.get(requests.failed)).toMatchObject({
      status: 'failed',
      failureReason: 'Page crashed',
      template: { id: history.templateId, revision: 2, version: null, name: 'Card v2' },
      states: [
        { state: 'requested', at: at(300) },
        { state: 'failed', at: at(302), detail: { reason: 'Page crashed' } },
      ],
      credits: {
        charged: 1,
        refunded: 1,
        movements: [
          { kind: 'charged', amount: 1, at: at(301) },
          { kind: 'refunded', amount: 1, at: at(303) },
        ],
      },
      webhooks: [
        { attempt: 1, outcome: 'failed', statusCode: 503 },
        { attempt: 2, outcome: 'failed', statusCode: 503 },
        { attempt: 2, outcome: 'abandoned', error: 'retry window closed', at: at(310) },
      ],
    });
    expect(row.get(requests.deleted)).toMatchObject({
      status: 'done',
      deletedAt: at(700),
      credits: { charged: 2, refunded: 0 },
      states: [{ state: 'requested' }, { state: 'completed', at: at(402) }, { state: 'deleted', at: at(700) }],
    });
    expect(row.get(requests.screenshot)).toMatchObject({ kind: 'screenshot', template: null, url: 'https://example.com/screenshot', format: 'png', data: null, status: 'done', credits: { charged: 1 } });
    expect(row.get(requests.pdf)).toMatchObject({ kind: 'pdf', format: 'pdf', status: 'done', file: { contentType: 'application/pdf', bytes: 4000 } });
    // Every row was handed out only once its last event was in: the deletion at 700 is the last.
    expect(rows.at(-1)?.requestId).toBe(requests.deleted);
  });

  it('filters by time of request and by template', async () => {
    const { requests } = history;
    const window = await replay({ orgId: history.orgId, from: new Date(at(200)), to: new Date(at(400)) });
    expect(window.map((row) => row.requestId).sort()).toEqual([requests.cached, requests.failed, requests.deleted].sort());
    // The deletion at 700 is outside the window, but it happened to a request inside it.
    expect(byRequest(window).get(requests.deleted)?.deletedAt).toBe(at(700));

    const ofTemplate = await replay({ orgId: history.orgId, templateId: history.otherTemplateId });
    expect(ofTemplate.map((row) => row.requestId)).toEqual([requests.otherTemplate]);
    expect(await replay({ orgId: 'org-without-history' })).toEqual([]);
  });

  it('pages the history in request order for keys with the audit scope', async () => {
    const first = await audit.historyPage(context(['audit']), { page: 0, size: 4 });
    const second = await audit.historyPage(context(['audit']), { page: 1, size: 4 });
    const { requests } = history;
    expect(first.total).toBe(7);
    expect([...first.items, ...second.items].map((row) => row.requestId)).toEqual([
      requests.rendered,
      requests.cached,
      requests.failed,
      requests.deleted,
      requests.screenshot,
      requests.pdf,
      requests.otherTemplate,
    ]);
    expect(second).toMatchObject({ page: 1, size: 4, total: 7 });
    expect(second.items).toHaveLength(3);
    expect((await audit.historyPage(context(['audit']), { page: 5, size: 4 })).items).toEqual([]);
    // The same rows as the full replay.
    const full = byRequest(await replay({ orgId: history.orgId }));
    for (const row of [...first.items, ...second.items]) expect(row).toEqual(full.get(row.requestId));

    await expect(audit.historyPage(context(['render', 'templates']), { page: 0, size: 4 })).rejects.toMatchObject({ code: 'forbidden' });
    const theirs = await audit.historyPage(context(['audit'], other.orgId), { page: 0, size: 50 });
    expect(theirs.items.map((row) => row.requestId).sort()).toEqual(Object.values(other.requests).sort());
  });

  it("reads only the caller's own events for a page, however large the rest of the log, and bounds pages in flight", async () => {
    let eventsRead = 0;
    const counting: EventStore = {
      ...eventStore,
      readAll: async (options) => {
        const page = await eventStore.readAll(options);
        eventsRead += page.length;
        return page;
      },
    };
    const bounded = createAuditService({
      eventStore: counting,
      integrity: createEventIntegrity(),
      ledger: createLedgerReadModel(databaseUrl),
      historyPagesInFlight: { total: 2, perKey: 1, retryAfterSeconds: 3 },
    });
    const own = (await replay({ orgId: history.orgId })).length;
    // Ten more organizations' histories are written after this one's; none of their events is read.
    for (let index = 0; index < 10; index++) await writeScriptedHistory(eventStore);
    const page = await bounded.historyPage(context(['audit']), { page: 0, size: 50 });
    expect(page.total).toBe(own);
    const ownEvents = (await eventStore.readAll({ after: null, limit: 100_000, orgId: history.orgId })).length;
    expect(eventsRead).toBeLessThanOrEqual(2 * ownEvents);

    const pages = await Promise.allSettled([
      bounded.historyPage(context(['audit']), { page: 0, size: 1 }),
      bounded.historyPage(context(['audit']), { page: 0, size: 1 }),
    ]);
    expect(pages.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(pages.find((outcome) => outcome.status === 'rejected')).toMatchObject({ reason: { code: 'unavailable', retryAfterSeconds: 3 } });
  });

  it('shows a template exactly as it was at any moment', async () => {
    const beforeEdit = await audit.templateSnapshot(history.templateId, new Date(at(120)));
    expect(beforeEdit).toMatchObject({
      templateId: history.templateId,
      revision: 1,
      changedAt: at(11),
      version: 2,
      versions: [
        { version: 1, revision: 0, changed: [], restoredFrom: null },
        { version: 2, revision: 1, changed: ['content'], restoredFrom: null },
      ],
      deletedAt: null,
      settings: { name: 'Card', width: 1200, height: 630 },
      content: { html: '<h1>{{title}}</h1>', css: 'h1{color:red}', sampleData: { title: 'Hello' } },
      properties: [{ key: 'title', type: 'text', defaultValue: 'Hello' }],
    });
    const afterEdit = await audit.templateSnapshot(history.templateId, new Date(at(151)));
    expect(afterEdit).toMatchObject({ revision: 2, version: 3, settings: { name: 'Card v2', width: 800, height: 630 } });
    // Before its creation it did not exist; the first render's revision explains its output.
    await expect(audit.templateSnapshot(history.templateId, new Date(at(9)))).rejects.toMatchObject({ code: 'not_found' });
    const atCreation = await audit.templateSnapshot(history.templateId, new Date(at(10)));
    expect(atCreation).toMatchObject({ revision: 0, content: null, properties: [] });

    await expect(audit.templateAt(context(['audit'], other.orgId), history.templateId, new Date(at(120)))).rejects.toMatchObject({ code: 'not_found' });
    await expect(audit.templateAt(context(['templates']), history.templateId, new Date(at(120)))).rejects.toMatchObject({ code: 'forbidden' });
    expect(await audit.templateAt(context(['audit']), history.templateId, new Date(at(120)))).toEqual(beforeEdit);
  });

  it("shows the charges and refunds of the organization's ledger streams, the batch row of each batch row's request, and a batch's history", async () => {
    const { requests, batch, orgId } = ledgered;
    const rows = byRequest(await replay({ orgId }));
    expect([...rows.keys()].sort()).toEqual([requests.own, ...requests.rows.slice(0, 3), requests.late, requests.renewed].sort());
    expect(rows.get(requests.own)).toMatchObject({ batch: null, status: 'done', credits: { charged: 2, refunded: 0, movements: [{ kind: 'charged', amount: 2, at: at(101) }] } });
    expect(rows.get(requests.late)).toMatchObject({ credits: { charged: 1, refunded: 0 } });
    expect(rows.get(requests.rows[0])).toMatchObject({ batch: { id: batch.id, name: batch.name, row: 1 }, actor: 'system', credits: { charged: 1, refunded: 0 } });
    expect(rows.get(requests.rows[1])).toMatchObject({ batch: { id: batch.id, name: batch.name, row: 2 }, file: { cached: true } });
    expect(rows.get(requests.rows[2])).toMatchObject({ batch: { id: batch.id, name: batch.name, row: 3 }, status: 'failed', credits: { charged: 1, refunded: 1 } });

    const page = await audit.historyPage(context(['audit'], orgId), { batchId: batch.id, page: 0, size: 50 });
    expect(page.total).toBe(3);
    expect(page.items.map((row) => row.batch?.row)).toEqual([1, 2, 3]);
    for (const row of page.items) expect(row).toEqual(rows.get(row.requestId));

    expect(await audit.batchHistory(context(['audit'], orgId), batch.id)).toMatchObject({
      batchId: batch.id,
      name: batch.name,
      status: 'ended',
      states: [{ state: 'requested' }, { state: 'row refused', detail: { row: 4 } }, { state: 'cancelled' }, { state: 'ended' }],
      ended: batch.counts,
    });
    await expect(audit.batchHistory(context(['audit']), batch.id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('replays events stored in older schema versions', async () => {
    await insertStoredEvents(databaseUrl, await legacyEvents());
    const [row] = await replay({ orgId: 'org-legacy' });
    expect(row).toMatchObject({
      requestId: 'req-legacy',
      actor: 'key-legacy',
      status: 'done',
      file: { cached: false, sourceRequestId: null, bytes: 2048 },
      credits: { charged: 1, refunded: 0 },
    });
  });
});
