import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditService, type AuditService } from '../../application/audit/audit-service.js';
import type { LedgerDifference } from '../../application/audit/ledger.js';
import type { EventStore } from '../../application/ports/event-store.js';
import { accountStream } from '../../domain/accounts/account-events.js';
import { createEventIntegrity } from '../../infrastructure/audit/event-integrity.js';
import { createLedgerReadModel } from '../../infrastructure/audit/ledger-read-model.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { eventSchemaRegistry } from '../../infrastructure/event-schemas/event-schema-registry.js';
import { createPostgresEventStore } from '../../infrastructure/event-store/postgres-event-store.js';
import { createProjectionSet, type ProjectionSet } from '../../infrastructure/projections/projection-set.js';
import { openReadModels } from '../../infrastructure/read-models/orm.js';
import { insertStoredEvents, legacyEvents } from '../fixtures/legacy-event-log.js';
import { createWriter, writeScriptedHistory, type ScriptedHistory } from '../fixtures/scripted-history.js';
import { writeLedgerHistory, type LedgerHistory } from '../fixtures/ledger-history.js';
import { batchStream } from '../../domain/batches/batch-events.js';
import { ledgerStream } from '../../domain/ledger/ledger-events.js';
import { createTestDatabase } from '../support/database.js';

const logger = createLogger('silent');

let databaseUrl: string;
let eventStore: EventStore;
let orm: MikroORM;
let projections: ProjectionSet;
let sql: pg.Pool;
let audit: AuditService;
let first: ScriptedHistory;
let second: ScriptedHistory;
let ledgered: LedgerHistory;

const settle = async () => {
  const head = (await eventStore.headPosition()) ?? -1;
  expect(await projections.waitFor(head, 10_000)).toBe(true);
};

const verify = async (orgId?: string) => {
  const differences: LedgerDifference[] = [];
  const report = await audit.verify({ orgId, onDifference: (difference) => differences.push(difference) });
  return { report, differences };
};

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  eventStore = await createPostgresEventStore({ connectionString: databaseUrl, schemas: eventSchemaRegistry });
  orm = await openReadModels(databaseUrl);
  projections = createProjectionSet({ orm, eventStore, logger });
  await projections.start();
  sql = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  audit = createAuditService({ eventStore, integrity: createEventIntegrity(), ledger: createLedgerReadModel(databaseUrl) });
  first = await writeScriptedHistory(eventStore);
  second = await writeScriptedHistory(eventStore);
  ledgered = await writeLedgerHistory(eventStore);
  await settle();
});
afterAll(async () => {
  await projections?.stop();
  await orm?.close();
  await sql?.end();
  await eventStore?.close();
});

describe('audit verify', () => {
  it('passes on a consistent store, having checked every event and chain', async () => {
    const { report, differences } = await verify();
    const count = Number((await sql.query<{ count: string }>('select count(*) from events')).rows[0]?.count);
    expect(differences).toEqual([]);
    expect(report).toMatchObject({ ok: true, eventsChecked: count, chainBreaks: 0, differences: 0, unchainedEvents: 0, head: (await eventStore.headPosition()) ?? -1 });
    // The recomputation is real: the scripted numbers are what the read model holds.
    const account = (await sql.query('select credits_used, uploads_used from accounts where org_id = $1', [first.orgId])).rows[0];
    expect(account).toEqual({ credits_used: first.creditsUsed, uploads_used: String(first.uploadsBytes) });
  });

  it('reports each difference introduced into the read models, and only for the organization asked about', async () => {
    await projections.stop();
    const pdfRow = (await sql.query<{ row: object }>('select row_to_json(r) as row from results r where request_id = $1', [first.requests.pdf])).rows[0]?.row;
    try {
      await sql.query('update accounts set credits_used = credits_used + 3, uploads_used = uploads_used - 100 where org_id = $1', [first.orgId]);
      await sql.query('update results set deleted = false where request_id = $1', [first.requests.deleted]);
      await sql.query('update results set status = $2 where request_id = $1', [first.requests.failed, 'done']);
      await sql.query('delete from results where request_id = $1', [first.requests.pdf]);

      const { report, differences } = await verify();
      expect(report).toMatchObject({ ok: false, chainBreaks: 0, differences: 6 });
      expect(differences).toEqual(
        expect.arrayContaining([
          { subject: `account ${first.orgId}`, field: 'creditsUsed', expected: first.creditsUsed, actual: first.creditsUsed + 3 },
          { subject: `account ${first.orgId}`, field: 'balance', expected: 500 - first.creditsUsed, actual: 500 - first.creditsUsed - 3 },
          { subject: `account ${first.orgId}`, field: 'uploadsUsed', expected: first.uploadsBytes, actual: first.uploadsBytes - 100 },
          { subject: `result ${first.requests.deleted}`, field: 'deleted', expected: true, actual: false },
          { subject: `result ${first.requests.failed}`, field: 'status', expected: 'failed', actual: 'done' },
          { subject: `result ${first.requests.pdf}`, field: 'row', expected: 'a row', actual: 'no row' },
        ]),
      );
      expect((await verify(second.orgId)).report.ok).toBe(true);
      expect((await verify(first.orgId)).report.differences).toBe(6);
    } finally {
      await sql.query('update accounts set credits_used = credits_used - 3, uploads_used = uploads_used + 100 where org_id = $1', [first.orgId]);
      await sql.query('update results set deleted = true where request_id = $1', [first.requests.deleted]);
      await sql.query('update results set status = $2 where request_id = $1', [first.requests.failed, 'failed']);
      await sql.query('insert into results select * from json_populate_record(null::results, $1::json)', [JSON.stringify(pdfRow)]);
      projections = createProjectionSet({ orm, eventStore, logger });
      await projections.start();
    }
    expect((await verify()).report.ok).toBe(true);
  });

  it('compares at the positions the read models reflect, even while they lag behind the log', async () => {
    await projections.stop();
    try {
      await createWriter(eventStore).append(accountStream(first.orgId), [{ type: 'CreditsCharged', data: { requestId: 'late', amount: 7, chargedAt: new Date().toISOString() } }], {
        orgId: first.orgId,
        second: 900,
      });
      const { report, differences } = await verify();
      expect(differences).toEqual([]);
      expect(report.readModelPositions.accounts).toBeLessThan(report.head ?? 0);
    } finally {
      projections = createProjectionSet({ orm, eventStore, logger });
      await projections.start();
    }
    await settle();
    expect((await verify()).report.ok).toBe(true);
  });

  it('reports the stream and revision of an event edited in the database', async () => {
    const charge = (
      await sql.query<{ revision: number; position: string }>("select revision, position from events where stream_name = $1 and type = 'CreditsCharged' order by revision limit 1", [
        accountStream(second.orgId),
      ])
    ).rows[0];
    if (!charge) throw new Error('the scripted history charges credits');
    await sql.query(`update events set data = jsonb_set(data, '{amount}', '40') where stream_name = $1 and revision = $2`, [accountStream(second.orgId), charge.revision]);

    const { report, differences } = await verify();
    expect(report).toMatchObject({ ok: false, chainBreaks: 1 });
    expect(differences).toContainEqual({
      subject: `stream ${accountStream(second.orgId)}`,
      field: `revision ${charge.revision} (position ${charge.position})`,
      expected: 'an unbroken hash chain',
      actual: 'the event does not match its hash (edited after it was written)',
    });
    // The edited amount is what the events now say; the read model still holds the original charge.
    expect(differences).toContainEqual({ subject: `account ${second.orgId}`, field: 'creditsUsed', expected: second.creditsUsed + 39, actual: second.creditsUsed });
    expect((await verify(first.orgId)).report.ok).toBe(true);

    await sql.query(`update events set data = jsonb_set(data, '{amount}', '1') where stream_name = $1 and revision = $2`, [accountStream(second.orgId), charge.revision]);
    expect((await verify()).report.ok).toBe(true);

    // A removed event breaks the chain at the next one.
    await sql.query('delete from events where stream_name = $1 and revision = $2', [accountStream(second.orgId), charge.revision]);
    const removed = await verify(second.orgId);
    expect(removed.differences).toContainEqual(
      expect.objectContaining({ subject: `stream ${accountStream(second.orgId)}`, field: expect.stringMatching(`^revision ${charge.revision + 1} `) }),
    );
  });

  it('recomputes credits from ledger streams, and checks batch streams and the charges of their rows', async () => {
    const { report, differences } = await verify(ledgered.orgId);
    expect(differences).toEqual([]);
    const count = Number((await sql.query<{ count: string }>("select count(*) from events where metadata->>'orgId' = $1", [ledgered.orgId])).rows[0]?.count);
    const batchEvents = Number((await sql.query<{ count: string }>('select count(*) from events where stream_name = $1', [batchStream(ledgered.batch.id)])).rows[0]?.count);
    expect(batchEvents).toBe(5);
    expect(report).toMatchObject({ ok: true, eventsChecked: count, chainBreaks: 0 });
    // The newest period is the balance; the charge made late to the earlier period is not in it.
    const account = (await sql.query('select credits_total, credits_used, next_renewal_at, uploads_used from accounts where org_id = $1', [ledgered.orgId])).rows[0];
    expect(account).toEqual({
      credits_total: ledgered.credits.total,
      credits_used: ledgered.credits.used,
      next_renewal_at: ledgered.credits.nextRenewalAt,
      uploads_used: String(ledgered.uploadsBytes),
    });

    await projections.stop();
    try {
      await sql.query('update accounts set credits_used = credits_used + 1 where org_id = $1', [ledgered.orgId]);
      expect((await verify(ledgered.orgId)).differences).toEqual([
        { subject: `account ${ledgered.orgId}`, field: 'creditsUsed', expected: ledgered.credits.used, actual: ledgered.credits.used + 1 },
        { subject: `account ${ledgered.orgId}`, field: 'balance', expected: ledgered.credits.total - ledgered.credits.used, actual: ledgered.credits.total - ledgered.credits.used - 1 },
      ]);
    } finally {
      await sql.query('update accounts set credits_used = credits_used - 1 where org_id = $1', [ledgered.orgId]);
      projections = createProjectionSet({ orm, eventStore, logger });
      await projections.start();
    }
    expect((await verify(ledgered.orgId)).report.ok).toBe(true);
  });

  it('reports an edited charge of a ledger stream and an edited batch event', async () => {
    const stream = ledgerStream(ledgered.orgId, '2026-04-01');
    const charge = (await sql.query<{ revision: number; position: string }>("select revision, position from events where stream_name = $1 and type = 'CreditsCharged'", [stream])).rows[0];
    if (!charge) throw new Error('the ledger history charges the new period');
    await sql.query(`update events set data = jsonb_set(data, '{amount}', '5') where stream_name = $1 and revision = $2`, [stream, charge.revision]);
    const ended = (await sql.query<{ revision: number; position: string }>("select revision, position from events where stream_name = $1 and type = 'BatchEnded'", [batchStream(ledgered.batch.id)])).rows[0];
    if (!ended) throw new Error('the ledger history ends its batch');
    await sql.query(`update events set data = jsonb_set(data, '{done}', '3') where stream_name = $1 and revision = $2`, [batchStream(ledgered.batch.id), ended.revision]);
    try {
      const { report, differences } = await verify(ledgered.orgId);
      expect(report).toMatchObject({ ok: false, chainBreaks: 2 });
      const edited = 'the event does not match its hash (edited after it was written)';
      expect(differences).toEqual(
        expect.arrayContaining([
          { subject: `stream ${stream}`, field: `revision ${charge.revision} (position ${charge.position})`, expected: 'an unbroken hash chain', actual: edited },
          { subject: `stream ${batchStream(ledgered.batch.id)}`, field: `revision ${ended.revision} (position ${ended.position})`, expected: 'an unbroken hash chain', actual: edited },
          { subject: `account ${ledgered.orgId}`, field: 'creditsUsed', expected: ledgered.credits.used + 2, actual: ledgered.credits.used },
        ]),
      );
    } finally {
      await sql.query(`update events set data = jsonb_set(data, '{amount}', '3') where stream_name = $1 and revision = $2`, [stream, charge.revision]);
      await sql.query(`update events set data = jsonb_set(data, '{done}', '2') where stream_name = $1 and revision = $2`, [batchStream(ledgered.batch.id), ended.revision]);
    }
    expect((await verify(ledgered.orgId)).report.ok).toBe(true);
  });

  it('accepts events from before hash chains and counts them', async () => {
    await insertStoredEvents(databaseUrl, await legacyEvents());
    await settle();
    const { report, differences } = await verify('org-legacy');
    expect(differences).toEqual([]);
    expect(report).toMatchObject({ ok: true, unchainedEvents: 7, chainBreaks: 0 });
    // Charged in the account stream, as logs before ledger streams hold charges: the same credits.
    const account = (await sql.query('select credits_total, credits_used from accounts where org_id = $1', ['org-legacy'])).rows[0];
    expect(account).toEqual({ credits_total: 100, credits_used: 1 });
  });
});
