import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditService, type AuditService } from '../../application/audit/audit-service.js';
import type { EventStore } from '../../application/ports/event-store.js';
import { systemContextFor } from '../../application/shared/request-context.js';
import { createCommandBatcher, type CommandBatcher } from '../../application/shared/command-batcher.js';
import { onAccountStream } from '../../application/shared/stream-commands.js';
import type { AccountCommand } from '../../domain/accounts/account-commands.js';
import { accountDecider } from '../../domain/accounts/account-decider.js';
import { accountStream, API_KEY_SCOPES, type AccountEvent } from '../../domain/accounts/account-events.js';
import { creditsLeft, type Account } from '../../domain/accounts/account.js';
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
import { createTestDatabase } from '../support/database.js';

type AccountBatcher = CommandBatcher<Account, AccountCommand, AccountEvent>;

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

const openAccount = async (credits: number) => {
  const orgId = randomUUID();
  const plan = { name: 'test', status: 'active', credits, renewalAmount: credits, nextRenewalAt: '2999-01-01', uploadsBytes: 1_000_000 };
  const context = { caller: { orgId, actor: 'system', scopes: API_KEY_SCOPES }, correlationId: randomUUID() };
  await onAccountStream(deps(), orgId, { type: 'OpenAccount', data: { orgId, name: 'Busy', plan, now: now() } }, context);
  return orgId;
};

const charge = (batcher: AccountBatcher, orgId: string, requestId: string, amount = 1) =>
  batcher.handle(orgId, { type: 'ChargeCredits', data: { orgId, requestId, amount, now: now() } }, systemContextFor(orgId, requestId));

const refund = (batcher: AccountBatcher, orgId: string, requestId: string) =>
  batcher.handle(orgId, { type: 'RefundCredits', data: { orgId, requestId, now: now() } }, systemContextFor(orgId, requestId));

const accountOf = async (orgId: string) => {
  const events = await eventStore.readStream(accountStream(orgId));
  const account = foldEvents(accountDecider, events as never[]);
  if (account.status !== 'open') throw new Error(`account ${orgId} is not open`);
  return { account, events };
};

const outcomesOf = async (attempts: readonly Promise<unknown>[]) => {
  const settled = await Promise.allSettled(attempts);
  const refusals = settled.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as { code?: string }] : []));
  return { succeeded: settled.filter((outcome) => outcome.status === 'fulfilled').length, refusals: refusals.map((refusal) => refusal.code) };
};

const expectAuditClean = async (orgId: string) => {
  expect(await projections.waitFor((await eventStore.headPosition()) ?? -1, 10_000)).toBe(true);
  const report = await audit.verify({ orgId });
  expect(report).toMatchObject({ ok: true, chainBreaks: 0, differences: 0 });
  const { account } = await accountOf(orgId);
  expect((await createAccountReadModel(orm).getAccount(orgId))?.creditsUsed).toBe(account.creditsUsed);
};

describe('charges of one busy organization', () => {
  it('charges exactly what the account affords when 200 renders charge at once, in a few appends', async () => {
    const orgId = await openAccount(50);
    const batcher = createCommandBatcher(deps(), accountDecider, accountStream);
    const requests = Array.from({ length: 200 }, () => randomUUID());
    appends.length = 0;

    const { succeeded, refusals } = await outcomesOf(requests.map((requestId) => charge(batcher, orgId, requestId)));

    expect(succeeded).toBe(50);
    expect(refusals).toEqual(Array.from({ length: 150 }, () => 'payment_required'));
    // Batched, not one append (and its conflicts) per charge.
    expect(appends.length).toBeLessThanOrEqual(5);
    const { account, events } = await accountOf(orgId);
    expect(creditsLeft(account)).toBe(0);
    const charged = events.filter((event) => event.type === 'CreditsCharged').map((event) => (event.data as { requestId: string }).requestId);
    expect(new Set(charged).size).toBe(50);
    await expectAuditClean(orgId);
  });

  it('treats retried charges and refunds as no-ops, and refunds each request once', async () => {
    const orgId = await openAccount(30);
    const batcher = createCommandBatcher(deps(), accountDecider, accountStream);
    const requests = Array.from({ length: 40 }, () => randomUUID());
    const first = await outcomesOf(requests.map((requestId) => charge(batcher, orgId, requestId)));
    expect(first.succeeded).toBe(30);
    const { events: afterCharges } = await accountOf(orgId);

    // Retried activities: every charge again, twice over, at once.
    const retried = await outcomesOf([...requests, ...requests].map((requestId) => charge(batcher, orgId, requestId)));
    expect(retried.succeeded).toBe(60);
    expect(retried.refusals).toEqual(Array.from({ length: 20 }, () => 'payment_required'));
    expect((await accountOf(orgId)).events).toHaveLength(afterCharges.length);

    // Each request refunded three times at once, and refunds of requests never charged.
    const charged = new Set(afterCharges.filter((event) => event.type === 'CreditsCharged').map((event) => (event.data as { requestId: string }).requestId));
    const refunds = requests.flatMap((requestId) => [requestId, requestId, requestId]);
    const refunded = await outcomesOf(refunds.map((requestId) => refund(batcher, orgId, requestId)));
    expect(refunded.succeeded).toBe(120);
    const { account, events } = await accountOf(orgId);
    const refundEvents = events.filter((event) => event.type === 'CreditsRefunded').map((event) => (event.data as { requestId: string }).requestId);
    expect(refundEvents.sort()).toEqual([...charged].sort());
    expect(account.creditsUsed).toBe(0);
    expect(creditsLeft(account)).toBe(30);
    await expectAuditClean(orgId);
  });

  it('stays exact when other processes charge the same account at the same time', async () => {
    const orgId = await openAccount(60);
    // Three processes, each with a batcher of its own, and a writer that does not batch at all.
    const batchers = [0, 1, 2].map(() => createCommandBatcher(deps(), accountDecider, accountStream));
    const viaHandler = (requestId: string) =>
      onAccountStream(deps(), orgId, { type: 'ChargeCredits', data: { orgId, requestId, amount: 2, now: now() } }, systemContextFor(orgId, requestId));
    const attempts = Array.from({ length: 90 }, (_, index) => {
      const requestId = randomUUID();
      const batcher = batchers[index % 3];
      return index % 10 === 9 || !batcher ? viaHandler(requestId) : charge(batcher, orgId, requestId, 1);
    });

    const { refusals } = await outcomesOf(attempts);

    expect(refusals.every((code) => code === 'payment_required' || code === 'conflict')).toBe(true);
    const { account, events } = await accountOf(orgId);
    const charges = events.filter((event) => event.type === 'CreditsCharged').map((event) => event.data as { amount: number });
    expect(charges.reduce((sum, { amount }) => sum + amount, 0)).toBe(account.creditsUsed);
    expect(creditsLeft(account)).toBeGreaterThanOrEqual(0);
    // 99 credits asked of 60: the account ran out, and said so.
    expect(refusals).toContain('payment_required');
    await expectAuditClean(orgId);
  });

  it('reads only what was appended since its last batch, including other writers\' events', async () => {
    const orgId = await openAccount(10);
    const batcher = createCommandBatcher(deps(), accountDecider, accountStream);
    await charge(batcher, orgId, randomUUID());
    const elsewhere = randomUUID();
    await onAccountStream(deps(), orgId, { type: 'ChargeCredits', data: { orgId, requestId: elsewhere, amount: 4, now: now() } }, systemContextFor(orgId, elsewhere));
    tailReads.length = 0;

    await charge(batcher, orgId, randomUUID(), 5);
    await expect(charge(batcher, orgId, randomUUID(), 1)).rejects.toMatchObject({ code: 'payment_required' });

    const reads = tailReads.filter((read) => read.stream === accountStream(orgId));
    // Opened (0), charged (1), charged elsewhere (2), charged (3): each read starts after what the batcher had folded.
    expect(reads.map((read) => read.fromRevision)).toEqual([2, 4]);
    expect(creditsLeft((await accountOf(orgId)).account)).toBe(0);
  });
});
