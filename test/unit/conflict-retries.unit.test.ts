import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createCommandBatcher } from '../../application/shared/command-batcher.js';
import { CONFLICT_ATTEMPTS, retryAfterConflict } from '../../application/shared/conflict-retries.js';
import { systemContextFor } from '../../application/shared/request-context.js';
import { onAccountStream } from '../../application/shared/stream-commands.js';
import { accountStream } from '../../domain/accounts/account-events.js';
import { NO_EARLIER_CREDITS } from '../../domain/ledger/ledger-commands.js';
import { ledgerDecider } from '../../domain/ledger/ledger-decider.js';
import { ledgerStream } from '../../domain/ledger/ledger-events.js';
import { DomainError } from '../../domain/shared/errors.js';
import { createWorld, ORG, type World } from '../support/application-world.js';

/**
 * Writers that lose an optimistic append wait a random, doubling share of time before trying
 * again, so writers in lockstep drift apart instead of losing together until their attempts run out.
 */

let world: World;

beforeEach(async () => {
  world = createWorld();
  await world.given.account(ORG, { credits: 10 });
});

const lost = () => new DomainError('conflict', 'the stream moved on');

/** The store's appends fail as lost to another writer `times` times, then go through. */
const losingAppends = (times: number) => {
  const append = world.eventStore.append.bind(world.eventStore);
  let losses = 0;
  return vi.spyOn(world.eventStore, 'append').mockImplementation((stream, events, expected) => {
    if (losses++ < times) return Promise.reject(lost());
    return append(stream, events, expected);
  });
};

const period = { endsAt: '2099-01-01', credits: 10 };
const books = ledgerStream(ORG, period.endsAt);
const chargeCommand = () => ({
  type: 'ChargeCredits' as const,
  data: { orgId: ORG, requestId: randomUUID(), amount: 1, now: new Date().toISOString(), period, earlier: NO_EARLIER_CREDITS },
});
const issueKeyCommand = () => {
  const keyId = randomUUID();
  return { type: 'IssueApiKey' as const, data: { orgId: ORG, keyId, label: 'retried', prefix: 'rk_', hash: keyId.replace(/-/g, '').padEnd(64, '0'), scopes: ['render' as const], now: new Date().toISOString() } };
};

describe('retrying after a lost append', () => {
  it('retries conflicts only, up to the last attempt', async () => {
    expect(await retryAfterConflict(new DomainError('payment_required', 'no credits'), 1)).toBe(false);
    expect(await retryAfterConflict(new Error('connection reset'), 1)).toBe(false);
    expect(await retryAfterConflict(lost(), 1)).toBe(true);
    expect(await retryAfterConflict(lost(), CONFLICT_ATTEMPTS - 1)).toBe(true);
    expect(await retryAfterConflict(lost(), CONFLICT_ATTEMPTS)).toBe(false);
  });

  it('waits a random share of a window that doubles with each loss', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const timeouts = vi.spyOn(globalThis, 'setTimeout');
    try {
      for (const attempt of [1, 2, 3, 4]) await retryAfterConflict(lost(), attempt);
      expect(timeouts.mock.calls.map(([, delay]) => delay)).toEqual([1, 2, 4, 8]);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('a command that loses six appends in a row still goes through, once', async () => {
    const appends = losingAppends(6);
    const command = issueKeyCommand();

    await onAccountStream(world.commandDeps, ORG, command, systemContextFor(ORG, command.data.keyId));

    expect(appends).toHaveBeenCalledTimes(7);
    const issued = (await world.eventStore.readStream(accountStream(ORG))).filter((event) => event.type === 'ApiKeyIssued' && (event.data as { keyId: string }).keyId === command.data.keyId);
    expect(issued).toHaveLength(1);
  });

  it('a batch that loses six appends in a row still goes through, every command of it once', async () => {
    const appends = losingAppends(6);
    const batcher = createCommandBatcher(world.commandDeps, ledgerDecider, (streamName: string) => streamName);
    const commands = [chargeCommand(), chargeCommand(), chargeCommand()];

    await Promise.all(commands.map((command) => batcher.handle(books, command, systemContextFor(ORG, command.data.requestId))));

    // The first command's append and six losses, then the two others together.
    expect(appends.mock.calls.length).toBeGreaterThanOrEqual(7);
    const charged = (await world.eventStore.readStream(books)).filter((event) => event.type === 'CreditsCharged');
    expect(charged.map((event) => (event.data as { requestId: string }).requestId).sort()).toEqual(commands.map((command) => command.data.requestId).sort());
  });

  it('gives up as a conflict when every attempt loses, having written nothing', async () => {
    const appends = losingAppends(Number.POSITIVE_INFINITY);
    const before = await world.eventStore.readStream(accountStream(ORG));
    const command = issueKeyCommand();

    await expect(onAccountStream(world.commandDeps, ORG, command, systemContextFor(ORG, command.data.keyId))).rejects.toMatchObject({ code: 'conflict' });

    expect(appends).toHaveBeenCalledTimes(CONFLICT_ATTEMPTS);
    expect(await world.eventStore.readStream(accountStream(ORG))).toEqual(before);
  });
});
