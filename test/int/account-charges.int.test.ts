import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditService, type AuditService } from '../../application/audit/audit-service.js';
import { createCredits, type Credits } from '../../application/credits/credits.js';
import type { EventStore } from '../../application/ports/event-store.js';
import { onAccountStream } from '../../application/shared/stream-commands.js';
import { accountStream, API_KEY_SCOPES } from '../../domain/accounts/account-events.js';
import { ledgerDecider } from '../../domain/ledger/ledger-decider.js';
import { ledgerStream } from '../../domain/ledger/ledger-events.js';
import { foldEvents } from '../../domain/shared/decider.js';
import { createEventIntegrity } from '../../infrastructure/audit/event-integrity.js';
import { createLedgerReadModel } from '../../infrastructure/audit/ledger-read-model.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { eventSchemaRegistry } from '../../infrastructure/event-schemas/event-schema-registry.js';
import { createPostgresEventStore } from '../../infrastructure/event-store/postgres-event-store.js';
import { createProjectionSet, type ProjectionSet } from '../../infrastructure/projections/projection-set.js';
import { createAccountReadModel } from '../../infrastructure/read-models/account-read-model.js';
import { openReadModels } from '../../infrastructure/read-models/orm.js';
import { systemClock, uuidV7Ids } from '../../infrastructure/system/clock-and-ids.js';
import { createWriter } from '../fixtures/scripted-history.js';
import { createTestDatabase } from '../support/database.js';

/** Every test's plan renews far ahead: one period, named by this date, unless a test asks for older ones. */
const FAR_RENEWAL = '2999-01-01';

let databaseUrl: string;
let eventStore: EventStore;
let orm: MikroORM;
let projections: ProjectionSet;
let audit: AuditService;
const appends: string[] = [];
const tailReads: { stream: string; fromRevision: number | undefined }[] = [];

/** The real store, counting appends and noting where stream reads start. */
const observed = (store: EventStore): EventStore => ({
  ...store,
  append: (stream, events, expected) => {
    appends.push(stream);
    return store.append(stream, events, expected);
  },
  readStream: (stream, options) => {
    tailReads.push({ stream, fromRevision: options?.fromRevision });
    return store.readStream(stream, options);
  },
});

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  eventStore = await createPostgresEventStore({ connectionString: databaseUrl, schemas: eventSchemaRegistry });
  orm = await openReadModels(databaseUrl);
  projections = createProjectionSet({ orm, eventStore, logger: createLogger('silent') });
  await projections.start();
  audit = createAuditService({ eventStore, integrity: createEventIntegrity(), ledger: createLedgerReadModel(databaseUrl) });
});

afterAll(async () => {
  await projections?.stop();
  await orm?.close();
  await eventStore?.close();
});

const deps = () => ({ eventStore: observed(eventStore), clock: systemClock, ids: uuidV7Ids });
const now = () => new Date().toISOString();

const openAccount = async (credits: number, nextRenewalAt = FAR_RENEWAL) => {
  const orgId = randomUUID();
  const plan = { name: 'test', status: 'active', credits, renewalAmount: credits, nextRenewalAt, uploadsBytes: 1_000_000 };
  const context = { caller: { orgId, actor: 'system', scopes: API_KEY_SCOPES }, correlationId: randomUUID() };
  await onAccountStream(deps(), orgId, { type: 'OpenAccount', data: { orgId, name: 'Busy', plan, now: now() } }, context);
  return orgId;
};

const charge = (credits: Credits, orgId: string, requestId: string, amount = 1, requestedAt = now()) => credits.charge({ orgId, requestId, credits: amount, requestedAt });

const refund = (credits: Credits, orgId: string, requestId: string, requestedAt = now()) => credits.refund({ orgId, requestId, credits: 0, requestedAt });

/** The books of one period, folded, and their events. */
const booksOf = async (orgId: string, endsAt = FAR_RENEWAL) => {
  const events = await eventStore.readStream(ledgerStream(orgId, endsAt));
  const books = foldEvents(ledgerDecider, events as never[]);
  if (books.status !== 'open') throw new Error(`the books of ${orgId} are not open`);
  return { books, left: books.credits - books.used, events };
};

const outcomesOf = async (attempts: readonly Promise<unknown>[]) => {
  const settled = await Promise.allSettled(attempts);
  const refusals = settled.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as { code?: string }] : []));
  return { succeeded: settled.filter((outcome) => outcome.status === 'fulfilled').length, refusals: refusals.map((refusal) => refusal.code) };
};

const expectAuditClean = async (orgId: string, used: number) => {
  expect(await projections.waitFor((await eventStore.headPosition()) ?? -1, 10_000)).toBe(true);
  const report = await audit.verify({ orgId });
  expect(report).toMatchObject({ ok: true, chainBreaks: 0, differences: 0 });
  expect((await createAccountReadModel(orm).getAccount(orgId))?.creditsUsed).toBe(used);
};

const requestIdsOf = (events: readonly { type: string; data: unknown }[], type: string) =>
  events.filter((event) => event.type === type).map((event) => (event.data as { requestId: string }).requestId);

describe('charges of one busy organization', () => {
  it('charges exactly what the period affords when 200 renders charge at once, in a few appends, and none to the account stream', async () => {
    const orgId = await openAccount(50);
    const accountBefore = await eventStore.readStream(accountStream(orgId));
    const credits = createCredits(deps());
    const requests = Array.from({ length: 200 }, () => randomUUID());
    appends.length = 0;

    const { succeeded, refusals } = await outcomesOf(requests.map((requestId) => charge(credits, orgId, requestId)));

    expect(succeeded).toBe(50);
    expect(refusals).toEqual(Array.from({ length: 150 }, () => 'payment_required'));
    // Batched, not one append (and its conflicts) per charge.
    expect(appends.length).toBeLessThanOrEqual(5);
    const { left, events } = await booksOf(orgId);
    expect(left).toBe(0);
    expect(events[0]?.type).toBe('BillingPeriodOpened');
    expect(new Set(requestIdsOf(events, 'CreditsCharged')).size).toBe(50);
    // The account's own stream, which keys, settings, fonts and uploads fold, holds none of it.
    expect(await eventStore.readStream(accountStream(orgId))).toHaveLength(accountBefore.length);
    await expectAuditClean(orgId, 50);
  });

  it('treats retried charges and refunds as no-ops, and refunds each request once', async () => {
    const orgId = await openAccount(30);
    const credits = createCredits(deps());
    const requests = Array.from({ length: 40 }, () => randomUUID());
    const first = await outcomesOf(requests.map((requestId) => charge(credits, orgId, requestId)));
    expect(first.succeeded).toBe(30);
    const { events: afterCharges } = await booksOf(orgId);

    // Retried activities: every charge again, twice over, at once.
    const retried = await outcomesOf([...requests, ...requests].map((requestId) => charge(credits, orgId, requestId)));
    expect(retried.succeeded).toBe(60);
    expect(retried.refusals).toEqual(Array.from({ length: 20 }, () => 'payment_required'));
    expect((await booksOf(orgId)).events).toHaveLength(afterCharges.length);

    // Each request refunded three times at once, and refunds of requests never charged.
    const charged = new Set(requestIdsOf(afterCharges, 'CreditsCharged'));
    const refunds = requests.flatMap((requestId) => [requestId, requestId, requestId]);
    const refunded = await outcomesOf(refunds.map((requestId) => refund(credits, orgId, requestId)));
    expect(refunded.succeeded).toBe(120);
    const { books, left, events } = await booksOf(orgId);
    expect(requestIdsOf(events, 'CreditsRefunded').sort()).toEqual([...charged].sort());
    expect(books.used).toBe(0);
    expect(left).toBe(30);
    await expectAuditClean(orgId, 0);
  });

  it('stays exact when other processes charge the same books at the same time', async () => {
    const orgId = await openAccount(60);
    // Four processes, each with its credits (and their batchers and caches) of its own.
    const processes = [0, 1, 2, 3].map(() => createCredits(deps()));
    const attempts = Array.from({ length: 90 }, (_, index) => charge(processes[index % 4]!, orgId, randomUUID(), index % 10 === 9 ? 2 : 1));

    const { refusals } = await outcomesOf(attempts);

    expect(refusals.every((code) => code === 'payment_required' || code === 'conflict')).toBe(true);
    const { books, left, events } = await booksOf(orgId);
    const charges = events.filter((event) => event.type === 'CreditsCharged').map((event) => event.data as { amount: number });
    expect(charges.reduce((sum, { amount }) => sum + amount, 0)).toBe(books.used);
    expect(left).toBeGreaterThanOrEqual(0);
    // 99 credits asked of 60: the books ran out, and said so.
    expect(refusals).toContain('payment_required');
    await expectAuditClean(orgId, books.used);
  });

  it("reads only what was appended since its last batch, including other processes' charges", async () => {
    const orgId = await openAccount(10);
    const credits = createCredits(deps());
    await charge(credits, orgId, randomUUID());
    await charge(createCredits(deps()), orgId, randomUUID(), 4);
    tailReads.length = 0;

    await charge(credits, orgId, randomUUID(), 5);
    await expect(charge(credits, orgId, randomUUID(), 1)).rejects.toMatchObject({ code: 'payment_required' });

    const reads = tailReads.filter((read) => read.stream === ledgerStream(orgId, FAR_RENEWAL));
    // Opened (0), charged (1), charged elsewhere (2), charged (3): each read starts after what the batcher had folded.
    expect(reads.map((read) => read.fromRevision)).toEqual([2, 4]);
    // The account was read once, when this process first charged it.
    expect(tailReads.filter((read) => read.stream === accountStream(orgId))).toEqual([]);
    expect((await booksOf(orgId)).left).toBe(0);
  });
});

describe('billing periods', () => {
  it('charges each request to the period it was made in, and a cold process reads the account and that period only', async () => {
    const orgId = await openAccount(5, '2026-01-01');
    const credits = createCredits(deps());
    // Three periods: up to Jan 1 (5 credits), then a month each (5 credits again).
    await charge(credits, orgId, 'december', 5, '2025-12-20T10:00:00.000Z');
    await charge(credits, orgId, 'january', 5, '2026-01-20T10:00:00.000Z');
    // Made on the last day of January, charged after February began: January's books, which are spent.
    await expect(charge(credits, orgId, 'late', 1, '2026-01-31T23:59:59.000Z')).rejects.toMatchObject({ code: 'payment_required' });
    await charge(credits, orgId, 'february', 2, '2026-02-03T10:00:00.000Z');
    expect((await booksOf(orgId, '2026-01-01')).books.used).toBe(5);
    expect((await booksOf(orgId, '2026-02-01')).books.used).toBe(5);
    expect((await booksOf(orgId, '2026-03-01')).books.used).toBe(2);

    tailReads.length = 0;
    await refund(createCredits(deps()), orgId, 'february', '2026-02-03T10:00:00.000Z');
    expect(new Set(tailReads.map((read) => read.stream))).toEqual(new Set([accountStream(orgId), ledgerStream(orgId, '2026-03-01')]));
    expect((await booksOf(orgId, '2026-03-01')).books.used).toBe(0);
    // Reports show the newest period.
    await expectAuditClean(orgId, 0);
  });

  it("takes over what an account stream written before ledgers had streams recorded, and charges nothing of it twice", async () => {
    const orgId = await openAccount(10);
    await createWriter(eventStore).append(
      accountStream(orgId),
      [
        { type: 'CreditsCharged', data: { requestId: 'before-1', amount: 3, chargedAt: now() } },
        { type: 'CreditsCharged', data: { requestId: 'before-2', amount: 2, chargedAt: now() } },
      ],
      { orgId, second: 1 },
    );
    await expectAuditClean(orgId, 5);
    const credits = createCredits(deps());

    await charge(credits, orgId, 'before-1', 3);
    await refund(credits, orgId, 'before-2');
    await charge(credits, orgId, 'after-1', 4);
    await expect(charge(credits, orgId, 'after-2', 4)).rejects.toMatchObject({ code: 'payment_required' });

    const { books, events } = await booksOf(orgId);
    expect(events.map((event) => event.type)).toEqual(['BillingPeriodOpened', 'CreditsRefunded', 'CreditsCharged']);
    expect(events[0]?.data).toMatchObject({ carriedUsed: 5 });
    expect(books.used).toBe(3 + 4);
    await expectAuditClean(orgId, 7);
  });
});
