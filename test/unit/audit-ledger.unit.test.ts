import { describe, expect, it } from 'vitest';
import { createAuditService } from '../../application/audit/audit-service.js';
import type { HistoryRow } from '../../application/audit/history.js';
import type { LedgerDifference } from '../../application/audit/ledger.js';
import type { AccountLedgerRow, LedgerReadModel, ResultPresenceRow } from '../../application/ports/audit.js';
import type { RequestContext } from '../../application/shared/request-context.js';
import { accountStream } from '../../domain/accounts/account-events.js';
import { batchStream } from '../../domain/batches/batch-events.js';
import { ledgerStream } from '../../domain/ledger/ledger-events.js';
import { renderStream } from '../../domain/renders/render-events.js';
import { createEventIntegrity } from '../../infrastructure/audit/event-integrity.js';
import { append, LEDGER_PLAN, writeLedgerHistory, type LedgerHistory } from '../fixtures/ledger-history.js';
import { legacyEvents } from '../fixtures/legacy-event-log.js';
import { at } from '../fixtures/scripted-history.js';
import { createInMemoryEventStore, type InMemoryEventStore } from '../support/in-memory-event-store.js';
import { renderCompleted, renderRequested } from '../support/render-events.js';

/** The read models as a test states them: the numbers worked out by hand from the events written. */
const readModel = (eventStore: InMemoryEventStore, accounts: AccountLedgerRow[], results: ResultPresenceRow[]): LedgerReadModel => ({
  async snapshot(orgId) {
    const position = (await eventStore.headPosition()) ?? -1;
    return {
      accountsPosition: position,
      resultsPosition: position,
      accounts: async function* () {
        yield* accounts.filter((row) => orgId === undefined || row.orgId === orgId);
      },
      results: async function* () {
        yield* results.filter((row) => orgId === undefined || row.orgId === orgId);
      },
      close: async () => {},
    };
  },
});

const verify = async (eventStore: InMemoryEventStore, accounts: AccountLedgerRow[], results: ResultPresenceRow[], orgId?: string) => {
  const audit = createAuditService({ eventStore, integrity: createEventIntegrity(), ledger: readModel(eventStore, accounts, results) });
  const differences: LedgerDifference[] = [];
  const report = await audit.verify({ orgId, onDifference: (difference) => differences.push(difference) });
  return { report, differences };
};

const resultsOf = ({ orgId, requests }: LedgerHistory): ResultPresenceRow[] => [
  { requestId: requests.own, orgId, status: 'done', deleted: false },
  { requestId: requests.rows[0], orgId, status: 'done', deleted: false },
  { requestId: requests.rows[1], orgId, status: 'done', deleted: false },
  { requestId: requests.rows[2], orgId, status: 'failed', deleted: false },
  { requestId: requests.late, orgId, status: 'done', deleted: false },
  { requestId: requests.renewed, orgId, status: 'done', deleted: false },
];

const replay = async (eventStore: InMemoryEventStore, filter: { orgId: string; batchId?: string }) => {
  const audit = createAuditService({ eventStore, integrity: createEventIntegrity(), ledger: readModel(eventStore, [], []) });
  const rows: HistoryRow[] = [];
  for await (const row of audit.replayHistory(filter)) rows.push(row);
  return new Map(rows.map((row) => [row.requestId, row]));
};

describe('audit verify: credits', () => {
  it('recomputes credits from ledger streams: a charge counts in the period of its stream, the newest period is the balance', async () => {
    const eventStore = createInMemoryEventStore();
    const history = await writeLedgerHistory(eventStore);
    const account = { orgId: history.orgId, creditsTotal: 300, creditsUsed: 3, uploadsUsed: 4000 };
    const clean = await verify(eventStore, [account], resultsOf(history));
    expect(clean.differences).toEqual([]);
    expect(clean.report).toMatchObject({ ok: true, chainBreaks: 0 });

    // A read model that counted the late charge in the new period, or still showed the old one, differs.
    const counted = await verify(eventStore, [{ ...account, creditsUsed: 4 }], resultsOf(history));
    expect(counted.differences).toEqual([
      { subject: `account ${history.orgId}`, field: 'creditsUsed', expected: 3, actual: 4 },
      { subject: `account ${history.orgId}`, field: 'balance', expected: 297, actual: 296 },
    ]);
    const stale = await verify(eventStore, [{ ...account, creditsTotal: 500, creditsUsed: 4 }], resultsOf(history));
    expect(stale.differences.map((difference) => difference.field)).toEqual(['creditsUsed', 'creditsTotal', 'balance']);
  });

  it('still folds charges, refunds and renewals from the account stream of a log written before ledgers', async () => {
    const eventStore = createInMemoryEventStore();
    eventStore.insertStored(await legacyEvents());
    const legacy = await verify(eventStore, [{ orgId: 'org-legacy', creditsTotal: 100, creditsUsed: 1, uploadsUsed: 2048 }], [
      { requestId: 'req-legacy', orgId: 'org-legacy', status: 'done', deleted: false },
    ]);
    expect(legacy.differences).toEqual([]);
    expect(legacy.report).toMatchObject({ ok: true, unchainedEvents: 7 });

    const orgId = 'org-renewed';
    const onAccount = (second: number, ...events: Parameters<typeof append>[2]) => append(eventStore, accountStream(orgId), events, { orgId, second });
    await onAccount(0, { type: 'AccountOpened', data: { orgId, name: 'Renewed', plan: LEDGER_PLAN, openedAt: at(0) } });
    await onAccount(1, { type: 'CreditsCharged', data: { requestId: 'r1', amount: 5, chargedAt: at(1) } });
    await onAccount(2, { type: 'CreditsRefunded', data: { requestId: 'r1', amount: 7, refundedAt: at(2) } });
    await onAccount(3, { type: 'CreditsCharged', data: { requestId: 'r2', amount: 4, chargedAt: at(3) } });
    await onAccount(4, { type: 'CreditsRenewed', data: { credits: 300, periodStartedAt: at(4), nextRenewalAt: '2026-04-01' } });
    await onAccount(5, { type: 'CreditsCharged', data: { requestId: 'r3', amount: 2, chargedAt: at(5) } });
    expect((await verify(eventStore, [{ orgId, creditsTotal: 300, creditsUsed: 2, uploadsUsed: 0 }], [], orgId)).differences).toEqual([]);
    expect((await verify(eventStore, [{ orgId, creditsTotal: 300, creditsUsed: 6, uploadsUsed: 0 }], [], orgId)).differences).toContainEqual({
      subject: `account ${orgId}`,
      field: 'creditsUsed',
      expected: 2,
      actual: 6,
    });
  });

  it('takes over what the account stream recorded of a period when its ledger opens', async () => {
    const eventStore = createInMemoryEventStore();
    const orgId = 'org-moved';
    const write = (stream: string, second: number, ...events: Parameters<typeof append>[2]) => append(eventStore, stream, events, { orgId, second });
    await write(accountStream(orgId), 0, { type: 'AccountOpened', data: { orgId, name: 'Moved', plan: LEDGER_PLAN, openedAt: at(0) } });
    await write(accountStream(orgId), 1, { type: 'CreditsCharged', data: { requestId: 'r1', amount: 4, chargedAt: at(1) } });
    await write(
      ledgerStream(orgId, '2026-03-01'),
      2,
      { type: 'BillingPeriodOpened', data: { orgId, endsAt: '2026-03-01', credits: 500, carriedUsed: 4, openedAt: at(2) } },
      { type: 'CreditsCharged', data: { requestId: 'r2', amount: 1, chargedAt: at(2) } },
    );
    const row = (creditsTotal: number, creditsUsed: number) => [{ orgId, creditsTotal, creditsUsed, uploadsUsed: 0 }];
    expect((await verify(eventStore, row(500, 5), [])).differences).toEqual([]);

    await write(
      ledgerStream(orgId, '2026-04-01'),
      3,
      { type: 'BillingPeriodOpened', data: { orgId, endsAt: '2026-04-01', credits: 300, carriedUsed: 0, openedAt: at(3) } },
      { type: 'CreditsCharged', data: { requestId: 'r3', amount: 2, chargedAt: at(3) } },
    );
    // A refund of the earlier period gives back nothing of the current one.
    await write(ledgerStream(orgId, '2026-03-01'), 4, { type: 'CreditsRefunded', data: { requestId: 'r2', amount: 1, refundedAt: at(4) } });
    expect((await verify(eventStore, row(300, 2), [])).differences).toEqual([]);
    expect((await verify(eventStore, row(300, 1), [])).report.differences).toBe(2);
  });
});

describe('audit history: credits and batches', () => {
  const auditor = (orgId: string, scopes: RequestContext['caller']['scopes'] = ['audit']): RequestContext => ({ caller: { orgId, actor: 'key-audit', scopes }, correlationId: 'test' });

  it("shows each request's charges and refunds from its period's ledger stream, and nothing of the period's opening", async () => {
    const eventStore = createInMemoryEventStore();
    const history = await writeLedgerHistory(eventStore);
    const { requests } = history;
    const rows = await replay(eventStore, { orgId: history.orgId });
    expect([...rows.keys()].sort()).toEqual([requests.own, ...requests.rows.slice(0, 3), requests.late, requests.renewed].sort());
    expect(rows.get(requests.own)).toMatchObject({ batch: null, credits: { charged: 2, refunded: 0, movements: [{ kind: 'charged', amount: 2, at: at(101) }] } });
    expect(rows.get(requests.rows[2])?.credits).toEqual({
      charged: 1,
      refunded: 1,
      movements: [
        { kind: 'charged', amount: 1, at: at(206) },
        { kind: 'refunded', amount: 1, at: at(208) },
      ],
    });
    // Charged to the earlier period after the renewal: still the request's charge.
    expect(rows.get(requests.late)).toMatchObject({ status: 'done', credits: { charged: 1, refunded: 0 } });
    expect(rows.get(requests.renewed)?.credits.charged).toBe(3);
    expect([...rows.values()].flatMap((row) => row.states.map((change) => change.state))).not.toContain('BillingPeriodOpened');
  });

  it("does not take another organization's charges of the same request id", async () => {
    const eventStore = createInMemoryEventStore();
    const orgId = 'org-a';
    await append(eventStore, renderStream('req-1'), [renderRequested({ requestId: 'req-1', orgId, requestedAt: at(1) })], { orgId, second: 1 });
    await append(eventStore, ledgerStream(orgId, '2026-03-01'), [{ type: 'CreditsCharged', data: { requestId: 'req-1', amount: 1, chargedAt: at(2) } }], { orgId, second: 2 });
    // org-a-b's ledger stream starts like org-a's: its organization is the whole name before the date.
    await append(eventStore, ledgerStream('org-a-b', '2026-03-01'), [{ type: 'CreditsCharged', data: { requestId: 'req-1', amount: 9, chargedAt: at(3) } }], { orgId, second: 3 });
    await append(eventStore, renderStream('req-1'), [renderCompleted({ requestId: 'req-1', completedAt: at(4) })], { orgId, second: 4 });
    expect((await replay(eventStore, { orgId })).get('req-1')?.credits).toEqual({ charged: 1, refunded: 0, movements: [{ kind: 'charged', amount: 1, at: at(2) }] });
  });

  it('names the batch and row of each batch row, and replays one batch\'s rows', async () => {
    const eventStore = createInMemoryEventStore();
    const history = await writeLedgerHistory(eventStore);
    const { requests, batch } = history;
    const rows = await replay(eventStore, { orgId: history.orgId });
    expect(rows.get(requests.rows[0])).toMatchObject({ actor: 'system', correlationId: batch.id, batch: { id: batch.id, name: batch.name, row: 1 }, status: 'done' });
    expect(rows.get(requests.rows[1])).toMatchObject({ batch: { id: batch.id, name: batch.name, row: 2 }, file: { cached: true }, credits: { charged: 0 } });
    expect(rows.get(requests.rows[2])).toMatchObject({ batch: { id: batch.id, name: batch.name, row: 3 }, status: 'failed' });
    expect(rows.get(requests.late)?.batch).toBeNull();

    const ofBatch = await replay(eventStore, { orgId: history.orgId, batchId: batch.id });
    expect([...ofBatch.keys()].sort()).toEqual(requests.rows.slice(0, 3).sort());
    expect(await replay(eventStore, { orgId: history.orgId, batchId: 'no-such-batch' })).toEqual(new Map());
  });

  it("does not take a request for a batch row because it names the batch's id as its correlation id", async () => {
    const eventStore = createInMemoryEventStore();
    const history = await writeLedgerHistory(eventStore);
    await append(eventStore, renderStream('req-other'), [renderRequested({ requestId: 'req-other', orgId: history.orgId, requestedAt: at(300), batchName: history.batch.name })], {
      orgId: history.orgId,
      second: 300,
      correlationId: history.batch.id,
    });
    expect((await replay(eventStore, { orgId: history.orgId })).get('req-other')?.batch).toBeNull();
  });

  it("gives a batch's history from its stream: asked, rows refused, cancelled, ended with its counts", async () => {
    const eventStore = createInMemoryEventStore();
    const history = await writeLedgerHistory(eventStore);
    const { batch, key, orgId } = history;
    const audit = createAuditService({ eventStore, integrity: createEventIntegrity(), ledger: readModel(eventStore, [], []) });
    const expected = {
      batchId: batch.id,
      orgId,
      name: batch.name,
      actor: key,
      correlationId: expect.any(String),
      requestedAt: at(200),
      template: { id: history.templateId, version: null },
      outputFormat: 'png',
      total: 5,
      credits: 5,
      cache: true,
      merge: false,
      webhookUrl: null,
      rows: { storageKey: `${orgId}/batches/${batch.id}/rows.jsonl`, sha256: 'a'.repeat(64), bytes: 120 },
      status: 'ended',
      states: [
        { state: 'requested', at: at(200), actor: key },
        { state: 'row refused', at: at(209), actor: 'system', detail: { row: 4, requestId: history.requests.rows[3], reason: 'Template not found' } },
        { state: 'cancelled', at: at(210), actor: key },
        { state: 'ended', at: at(212), actor: 'system', detail: { ...batch.counts, mergedStorageKey: null } },
      ],
      refused: [{ row: 4, requestId: history.requests.rows[3], reason: 'Template not found', at: at(209) }],
      cancelledAt: at(210),
      ended: { ...batch.counts, mergedStorageKey: null, endedAt: at(212) },
      position: expect.any(Number),
    };
    expect(await audit.batch(batch.id)).toEqual(expected);
    expect(await audit.batchHistory(auditor(orgId), batch.id)).toEqual(expected);

    await expect(audit.batchHistory(auditor('org-other'), batch.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(audit.batchHistory(auditor(orgId, ['render']), batch.id)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(audit.batch('no-such-batch')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('shows a batch still running as pending, with no end', async () => {
    const eventStore = createInMemoryEventStore();
    const orgId = 'org-running';
    await append(
      eventStore,
      batchStream('b-1'),
      [
        {
          type: 'BatchRequested',
          data: {
            batchId: 'b-1',
            orgId,
            name: 'Running',
            templateId: 'tpl-1',
            templateVersion: 2,
            outputFormat: 'pdf',
            total: 2,
            rows: { storageKey: 'k', sha256: 'b'.repeat(64), bytes: 10 },
            credits: 2,
            cache: false,
            webhookUrl: 'https://hooks.example.com/b',
            merge: true,
            requestedAt: at(1),
          },
        },
      ],
      { orgId, second: 1, actor: 'key-1' },
    );
    const audit = createAuditService({ eventStore, integrity: createEventIntegrity(), ledger: readModel(eventStore, [], []) });
    expect(await audit.batch('b-1')).toMatchObject({ status: 'pending', template: { id: 'tpl-1', version: 2 }, merge: true, cancelledAt: null, ended: null, refused: [], states: [{ state: 'requested' }] });
  });
});
