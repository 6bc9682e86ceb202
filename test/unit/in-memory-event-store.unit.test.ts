import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { API_KEY_SCOPES } from '../../domain/accounts/account-events.js';
import type { EventEnvelope } from '../../domain/shared/events.js';
import { EventSchemaViolation } from '../../infrastructure/event-schemas/event-schema-registry.js';
import { createChainChecker } from '../../infrastructure/event-store/event-chain.js';
import { legacyEvents } from '../fixtures/legacy-event-log.js';
import { eventStoreContract } from '../int/event-store-contract.js';
import { createInMemoryEventStore } from '../support/in-memory-event-store.js';
import { renderRequested } from '../support/render-events.js';

// The contract appends events of made-up types, so it runs this store as it runs the real adapters: without schemas.
eventStoreContract('in-memory', async () => createInMemoryEventStore({ schemas: null }));

const metadata = (orgId = 'org-1') => ({
  eventId: randomUUID(),
  schemaVersion: 1,
  occurredAt: '2026-03-01T12:00:00.000Z',
  orgId,
  actor: 'system',
  correlationId: 'c-1',
  causationId: 'c-1',
});

const requested = (requestId: string): EventEnvelope => {
  const { type, data } = renderRequested({ requestId, orgId: 'org-1', requestedAt: '2026-03-01T12:00:00.000Z' });
  return { type, data, metadata: metadata() };
};

const failed = (requestId: string): EventEnvelope => ({ type: 'RenderFailed', data: { requestId, reason: 'boom', failedAt: '2026-03-01T12:00:01.000Z' }, metadata: metadata() });

describe('in-memory event store with the service schemas (as test/int/event-schemas.int.test.ts has the PostgreSQL one)', () => {
  it('stamps each event with its current schema version and chains the stream', async () => {
    const store = createInMemoryEventStore();
    await store.append('render-r1', [requested('r1')], 'no-stream');
    await store.append('render-r1', [failed('r1')], 0);

    const stream = await store.readStream('render-r1');
    expect(stream.map((event) => [event.type, event.metadata.schemaVersion])).toEqual([
      ['RenderRequested', 2],
      ['RenderFailed', 1],
    ]);
    expect(stream.map((event) => event.metadata.previousHash)).toEqual([null, stream[0]?.metadata.hash]);
    const checker = createChainChecker();
    expect(stream.map((event) => checker.check(event))).toEqual([null, null]);
  });

  it('refuses an unknown type or data its schema does not allow, and stores nothing of that append', async () => {
    const store = createInMemoryEventStore();
    await expect(store.append('render-r2', [{ type: 'Nonsense', data: {}, metadata: metadata() } as unknown as EventEnvelope], 'no-stream')).rejects.toThrow(
      /no schema is registered/,
    );
    const broken = { ...requested('r2'), data: { requestId: 'r2' } } as EventEnvelope;
    await expect(store.append('render-r2', [requested('r2'), broken], 'no-stream')).rejects.toBeInstanceOf(EventSchemaViolation);

    expect(await store.readStream('render-r2')).toEqual([]);
    expect(await store.headPosition()).toBeNull();
  });

  it('refuses what jsonb cannot hold, as PostgreSQL does, and stores nothing of that append', async () => {
    const store = createInMemoryEventStore({ schemas: null });
    await expect(store.append('nul', [{ ...failed('r'), data: { text: 'nul \u0000 here' } } as EventEnvelope], 'no-stream')).rejects.toMatchObject({ code: '22P05' });
    expect(await store.readStream('nul')).toEqual([]);
  });

  it('reads a log of older versions as current events, and as written for asStored readers', async () => {
    const store = createInMemoryEventStore();
    const fixture = await legacyEvents();
    store.insertStored(fixture);

    const key = (await store.readStream('account-org-legacy')).find((event) => event.type === 'ApiKeyIssued');
    expect(key?.data).toMatchObject({ keyId: 'key-legacy', scopes: [...API_KEY_SCOPES] });
    expect(key?.metadata.schemaVersion).toBe(3);
    const completed = (await store.readStream('render-req-legacy')).at(-1);
    expect(completed?.data).toMatchObject({ cached: false, sourceRequestId: null });
    expect((await store.readAll({ after: null, limit: 100 })).find((event) => event.type === 'ApiKeyIssued')?.data).toHaveProperty('scopes');

    const asStored = await store.readAll({ after: null, limit: 100, asStored: true });
    expect(asStored.map(({ streamName, type, data }) => ({ streamName, type, data }))).toEqual(fixture.map(({ streamName, type, data }) => ({ streamName, type, data })));
    const checker = createChainChecker();
    expect(asStored.map((event) => checker.check(event))).toEqual(asStored.map(() => null));
    expect(checker.unchained()).toBe(fixture.length);
  });

  it('continues a legacy stream with a chain that starts at its first hashed event', async () => {
    const store = createInMemoryEventStore();
    store.insertStored(await legacyEvents());
    const before = await store.readStream('template-tpl-legacy');
    await store.append(
      'template-tpl-legacy',
      [{ type: 'TemplateDeleted', data: { templateId: 'tpl-legacy', deletedAt: '2026-01-01T00:00:00.000Z' }, metadata: metadata('org-legacy') } as EventEnvelope],
      before.length - 1,
    );

    expect((await store.readStream('template-tpl-legacy')).at(-1)?.metadata).toMatchObject({ previousHash: null, hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const checker = createChainChecker();
    expect((await store.readAll({ after: null, limit: 100, asStored: true })).map((event) => checker.check(event)).filter(Boolean)).toEqual([]);
  });

  it('hands out copies: changing what was read changes nothing stored', async () => {
    const store = createInMemoryEventStore();
    await store.append('render-r4', [requested('r4')], 'no-stream');
    const [read] = await store.readStream('render-r4');
    (read?.data as { requestId: string }).requestId = 'tampered';

    expect((await store.readStream('render-r4'))[0]?.data).toMatchObject({ requestId: 'r4' });
  });
});
