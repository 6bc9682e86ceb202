import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { v7 as uuidv7 } from 'uuid';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventStore, ExpectedRevision, Subscription } from '../../application/ports/event-store.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { EventEnvelope, RecordedEvent } from '../../domain/shared/events.js';
import { createChainChecker, eventHash } from '../../infrastructure/event-store/event-chain.js';

export type EventStoreFactory = () => Promise<EventStore>;

/**
 * The behaviour every EventStore adapter must show. Each test works in streams of its own and
 * only looks at its own events, because a shared server (EventStoreDB) holds other tests' events too.
 */
export function eventStoreContract(name: string, factory: EventStoreFactory): void {
  describe(`EventStore contract: ${name}`, () => {
    let store: EventStore;
    let prefix: string;
    let subscriptions: Subscription[];

    beforeEach(async () => {
      store = await factory();
      prefix = `contract${randomUUID().replaceAll('-', '')}`;
      subscriptions = [];
    });

    afterEach(async () => {
      await Promise.all(subscriptions.map((subscription) => subscription.stop()));
      await store.close();
    });

    const stream = (label: string) => `${prefix}-${label}`;
    const ours = (events: readonly RecordedEvent[]) => events.filter((event) => event.streamName.startsWith(prefix));

    const envelope = (type: string, data: object = {}, orgId = 'org-contract'): EventEnvelope => ({
      type,
      data,
      metadata: {
        eventId: uuidv7(),
        schemaVersion: 1,
        occurredAt: new Date().toISOString(),
        orgId,
        actor: 'system',
        correlationId: randomUUID(),
        causationId: randomUUID(),
      },
    });

    const expectConflict = async (appending: Promise<unknown>) => {
      const error = await appending.then(
        () => expect.fail('the append should have been rejected as a conflict'),
        (rejection: unknown) => rejection,
      );
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).code).toBe('conflict');
    };

    /** Appends a throwaway event and returns its position: "now" in the global log. */
    const mark = async () => (await store.append(stream(`marker-${randomUUID()}`), [envelope('Marker')], 'no-stream')).position;

    const subscribe = (after: number | null, onEvent?: (event: RecordedEvent) => Promise<void>) => {
      const received: RecordedEvent[] = [];
      const subscription = store.subscribeToAll(after, async (events) => {
        expect(events.length).toBeGreaterThan(0);
        for (const event of events) {
          received.push(event);
          await onEvent?.(event);
        }
      });
      subscriptions.push(subscription);
      return { received, subscription };
    };

    const waitFor = async (condition: () => boolean, what: string, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!condition()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await sleep(20);
      }
    };

    const positions = (events: readonly RecordedEvent[]) => events.map((event) => event.position);

    const expectStrictlyIncreasing = (values: readonly number[]) => {
      values.slice(1).forEach((value, index) => expect(value).toBeGreaterThan(values[index] ?? -Infinity));
    };

    /** Every event after `after` up to and including position `upTo`, read page by page. */
    const readAllUpTo = async (after: number, upTo: number, pageSize = 50) => {
      const events: RecordedEvent[] = [];
      let cursor = after;
      while (cursor < upTo) {
        const page = await store.readAll({ after: cursor, limit: pageSize });
        if (page.length === 0) break;
        events.push(...page.filter((event) => event.position <= upTo));
        cursor = page.at(-1)?.position ?? upTo;
      }
      return events;
    };

    it("appends to a new stream with 'no-stream'", async () => {
      const result = await store.append(stream('new'), [envelope('First'), envelope('Second')], 'no-stream');

      expect(result.nextExpectedRevision).toBe(1);
      const stored = await store.readStream(stream('new'));
      expect(stored.map(({ type, revision, streamName }) => ({ type, revision, streamName }))).toEqual([
        { type: 'First', revision: 0, streamName: stream('new') },
        { type: 'Second', revision: 1, streamName: stream('new') },
      ]);
      expect(stored.at(-1)?.position).toBe(result.position);
      expectStrictlyIncreasing(positions(stored));
    });

    it("rejects a second 'no-stream' append to an existing stream", async () => {
      await store.append(stream('once'), [envelope('Created')], 'no-stream');

      await expectConflict(store.append(stream('once'), [envelope('CreatedAgain')], 'no-stream'));
      expect((await store.readStream(stream('once'))).map((event) => event.type)).toEqual(['Created']);
    });

    it('accepts the exact expected revision and rejects a stale or wrong one', async () => {
      await store.append(stream('occ'), [envelope('V0')], 'no-stream');

      const result = await store.append(stream('occ'), [envelope('V1')], 0);
      expect(result.nextExpectedRevision).toBe(1);

      await expectConflict(store.append(stream('occ'), [envelope('Stale')], 0));
      await expectConflict(store.append(stream('occ'), [envelope('Ahead')], 5));
      await expectConflict(store.append(stream('missing'), [envelope('OnMissing')], 0));
      expect((await store.readStream(stream('occ'))).map((event) => event.type)).toEqual(['V0', 'V1']);
      expect(await store.readStream(stream('missing'))).toEqual([]);
    });

    it("'any' appends whether or not the stream exists", async () => {
      expect((await store.append(stream('any'), [envelope('A')], 'any')).nextExpectedRevision).toBe(0);
      expect((await store.append(stream('any'), [envelope('B'), envelope('C')], 'any')).nextExpectedRevision).toBe(2);

      expect((await store.readStream(stream('any'))).map((event) => event.type)).toEqual(['A', 'B', 'C']);
    });

    it('reads a stream in revision order, and an unknown stream as empty', async () => {
      let expected: ExpectedRevision = 'no-stream';
      for (const type of ['One', 'Two', 'Three']) {
        expected = (await store.append(stream('ordered'), [envelope(type)], expected)).nextExpectedRevision;
      }
      await store.append(stream('ordered'), [envelope('Four'), envelope('Five')], expected);

      const stored = await store.readStream(stream('ordered'));
      expect(stored.map((event) => [event.revision, event.type])).toEqual([
        [0, 'One'],
        [1, 'Two'],
        [2, 'Three'],
        [3, 'Four'],
        [4, 'Five'],
      ]);
      expectStrictlyIncreasing(positions(stored));
      expect(await store.readStream(stream('never-written'))).toEqual([]);
    });

    it('reads a stream from a revision on', async () => {
      await store.append(stream('tail'), ['T0', 'T1', 'T2', 'T3'].map((type) => envelope(type)), 'no-stream');

      expect((await store.readStream(stream('tail'), { fromRevision: 2 })).map((event) => [event.revision, event.type])).toEqual([
        [2, 'T2'],
        [3, 'T3'],
      ]);
      expect(await store.readStream(stream('tail'), { fromRevision: 4 })).toEqual([]);
      expect(await store.readStream(stream('no-tail'), { fromRevision: 1 })).toEqual([]);
      expect(await store.readStream(stream('tail'), { fromRevision: 0 })).toEqual(await store.readStream(stream('tail')));
    });

    it('stores nothing of a multi-event append that conflicts', async () => {
      const before = await mark();
      await store.append(stream('atomic'), [envelope('Created')], 'no-stream');

      await expectConflict(
        store.append(stream('atomic'), [envelope('Lost1'), envelope('Lost2'), envelope('Lost3')], 'no-stream'),
      );
      await expectConflict(store.append(stream('atomic'), [envelope('Lost4'), envelope('Lost5')], 7));

      expect((await store.readStream(stream('atomic'))).map((event) => event.type)).toEqual(['Created']);
      const after = await mark();
      const logged = ours(await readAllUpTo(before, after)).map((event) => event.type);
      expect(logged).toEqual(['Created', 'Marker']);
    });

    it('reads the global log in position order, page by page', async () => {
      const before = await mark();
      const appended: string[] = [];
      for (const [label, types] of [
        ['a', ['A1', 'A2']],
        ['b', ['B1']],
        ['a', ['A3']],
        ['c', ['C1', 'C2', 'C3']],
      ] as const) {
        await store.append(stream(label), types.map((type) => envelope(type)), 'any');
        appended.push(...types);
      }
      const last = await mark();

      const paged: RecordedEvent[] = [];
      let cursor = before;
      while (!paged.some((event) => event.position === last)) {
        const page = await store.readAll({ after: cursor, limit: 2 });
        expect(page.length).toBeGreaterThan(0);
        expect(page.length).toBeLessThanOrEqual(2);
        expect(page[0]?.position).toBeGreaterThan(cursor);
        paged.push(...page);
        cursor = page.at(-1)?.position ?? cursor;
      }

      expectStrictlyIncreasing(positions(paged));
      expect(ours(paged).map((event) => event.type)).toEqual([...appended, 'Marker']);
      const single = await store.readAll({ after: before, limit: paged.length });
      expect(positions(single)).toEqual(positions(paged));

      const fromStart = await store.readAll({ after: null, limit: 3 });
      expect(fromStart).toHaveLength(3);
      expectStrictlyIncreasing(positions(fromStart));
    });

    it("reads one organization's events of the global log, page by page, skipping everyone else's", async () => {
      const before = await mark();
      const orgA = `org-a-${randomUUID()}`;
      const orgB = `org-b-${randomUUID()}`;
      for (let index = 0; index < 5; index++) {
        await store.append(stream('mixed'), [envelope(`A${index}`, {}, orgA), envelope(`B${index}`, {}, orgB), envelope(`B${index}b`, {}, orgB)], 'any');
      }
      const paged: RecordedEvent[] = [];
      let cursor = before;
      for (;;) {
        const page = await store.readAll({ after: cursor, limit: 2, orgId: orgA });
        expect(page.length).toBeLessThanOrEqual(2);
        paged.push(...page);
        if (page.length < 2) break;
        cursor = page.at(-1)?.position ?? cursor;
      }
      expect(paged.map((event) => event.type)).toEqual(['A0', 'A1', 'A2', 'A3', 'A4']);
      expect(new Set(paged.map((event) => event.metadata.orgId))).toEqual(new Set([orgA]));
      expectStrictlyIncreasing(positions(paged));
      expect(await store.readAll({ after: before, limit: 10, orgId: `org-none-${randomUUID()}` })).toEqual([]);
    });

    it('catches a subscription up, then delivers live events in position order, each once, one at a time', async () => {
      const before = await mark();
      await store.append(stream('early'), [envelope('E1'), envelope('E2')], 'no-stream');
      await store.append(stream('other'), [envelope('O1')], 'no-stream');

      let running = 0;
      let mostAtOnce = 0;
      const { received } = subscribe(before, async () => {
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        await sleep(2);
        running -= 1;
      });
      await waitFor(() => ours(received).length >= 3, 'the catch-up events');

      await store.append(stream('early'), [envelope('E3')], 1);
      await store.append(stream('late'), [envelope('L1'), envelope('L2'), envelope('L3')], 'no-stream');
      await waitFor(() => ours(received).length >= 7, 'the live events');
      await sleep(200);

      expect(ours(received).map((event) => event.type)).toEqual(['E1', 'E2', 'O1', 'E3', 'L1', 'L2', 'L3']);
      expect(received[0]?.position).toBeGreaterThan(before);
      expectStrictlyIncreasing(positions(received));
      expect(mostAtOnce).toBe(1);
    });

    it('delivers the whole history to a subscription from the start of the log', async () => {
      await store.append(stream('history'), [envelope('H1'), envelope('H2')], 'no-stream');

      const { received } = subscribe(null);
      await waitFor(() => ours(received).length >= 2, 'the history');

      expect(ours(received).map((event) => event.type)).toEqual(['H1', 'H2']);
      expectStrictlyIncreasing(positions(received));
    });

    it('starts a subscription right after the position it is given', async () => {
      const appended: number[] = [];
      let expected: ExpectedRevision = 'no-stream';
      for (let index = 0; index < 5; index += 1) {
        const result = await store.append(stream('middle'), [envelope(`M${index}`)], expected);
        appended.push(result.position);
        expected = result.nextExpectedRevision;
      }
      const middle = appended[2] ?? expect.fail('five appends were made');

      const { received } = subscribe(middle);
      await waitFor(() => ours(received).length >= 2, 'the events after the middle');
      await sleep(200);

      expect(ours(received).map((event) => event.type)).toEqual(['M3', 'M4']);
      expect(received.every((event) => event.position > middle)).toBe(true);
    });

    it('delivers nothing after stop()', async () => {
      const before = await mark();
      const { received, subscription } = subscribe(before);
      await store.append(stream('stop'), [envelope('Seen')], 'no-stream');
      await waitFor(() => ours(received).length >= 1, 'the first event');

      await subscription.stop();
      await store.append(stream('stop'), [envelope('Unseen')], 0);
      await sleep(500);

      expect(ours(received).map((event) => event.type)).toEqual(['Seen']);
    });

    it('ends a subscription whose handler fails', async () => {
      const before = await mark();
      await store.append(stream('fail'), [envelope('Boom'), envelope('NeverDelivered')], 'no-stream');
      let calls = 0;
      const { subscription } = subscribe(before, async () => {
        calls += 1;
        throw new Error('handler failure');
      });

      await subscription.done;
      expect(calls).toBe(1);
    });

    it('keeps the log whole under concurrent appenders', async () => {
      const before = await mark();
      const { received } = subscribe(before);

      const distinct = await Promise.all(
        Array.from({ length: 20 }, (_, index) => store.append(stream(`parallel-${index}`), [envelope('Parallel')], 'no-stream')),
      );
      expect(distinct.every((result) => result.nextExpectedRevision === 0)).toBe(true);

      await store.append(stream('contended'), [envelope('Race0')], 'no-stream');
      for (let revision = 0; revision < 3; revision += 1) {
        const outcomes = await Promise.allSettled(
          Array.from({ length: 10 }, () => store.append(stream('contended'), [envelope(`Race${revision + 1}`)], revision)),
        );
        const winners = outcomes.filter((outcome) => outcome.status === 'fulfilled');
        const losers = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
        expect(winners).toHaveLength(1);
        expect(losers).toHaveLength(9);
        for (const loser of losers) expect(loser).toMatchObject({ code: 'conflict' });
      }

      const contended = await store.readStream(stream('contended'));
      expect(contended.map((event) => [event.revision, event.type])).toEqual([
        [0, 'Race0'],
        [1, 'Race1'],
        [2, 'Race2'],
        [3, 'Race3'],
      ]);

      const last = await mark();
      await waitFor(() => received.some((event) => event.position === last), 'the subscriber to reach the last append');
      expect(ours(received)).toHaveLength(20 + 4 + 1);
      expectStrictlyIncreasing(positions(received));
      const logged = await readAllUpTo(before, last);
      expect(positions(received.filter((event) => event.position <= last))).toEqual(positions(logged));
    });

    it('commits many concurrent appends to distinct streams, each once, none lost', async () => {
      const before = await mark();
      const results = await Promise.all(
        Array.from({ length: 120 }, (_, index) =>
          store.append(stream(`burst-${index}`), [envelope('Burst', { index }), envelope('BurstMore', { index })], 'no-stream'),
        ),
      );
      const last = await mark();

      expect(results.every((result) => result.nextExpectedRevision === 1)).toBe(true);
      const logged = ours(await readAllUpTo(before, last)).filter((event) => event.type.startsWith('Burst'));
      expect(logged).toHaveLength(240);
      expectStrictlyIncreasing(positions(logged));
      // Each append's reported position is that of its own last event, and its events are adjacent in its stream.
      results.forEach((result, index) => {
        const own = logged.filter((event) => event.streamName === stream(`burst-${index}`));
        expect(own.map((event) => [event.revision, event.type])).toEqual([
          [0, 'Burst'],
          [1, 'BurstMore'],
        ]);
        expect(own.at(-1)?.position).toBe(result.position);
      });
    });

    it('fails only the appends whose expected revision does not hold when many arrive at once', async () => {
      await store.append(stream('stale'), [envelope('S0')], 'no-stream');

      const outcomes = await Promise.allSettled(
        Array.from({ length: 60 }, (_, index) =>
          index % 2 === 0
            ? store.append(stream(`fresh-${index}`), [envelope('Fresh')], 'no-stream')
            : store.append(stream('stale'), [envelope(`Stale${index}`)], 5),
        ),
      );

      outcomes.forEach((outcome, index) => {
        if (index % 2 === 0) expect(outcome.status).toBe('fulfilled');
        else expect(outcome).toMatchObject({ status: 'rejected', reason: { code: 'conflict' } });
      });
      expect((await store.readStream(stream('stale'))).map((event) => event.type)).toEqual(['S0']);
      for (let index = 0; index < 60; index += 2) expect(await store.readStream(stream(`fresh-${index}`))).toHaveLength(1);
    });

    it('lets exactly one of many writers win each revision of one stream, with no gaps and a whole chain', async () => {
      const before = await mark();
      const writers = 12;
      const perWriter = 5;
      let conflicts = 0;
      const winsAt = new Map<number, number>();
      /** Appends `perWriter` events, each time at the revision it last read, re-reading after every conflict. */
      const writer = async (id: number) => {
        for (let written = 0; written < perWriter; ) {
          const head = (await store.readStream(stream('contest'))).at(-1)?.revision ?? null;
          try {
            const result = await store.append(stream('contest'), [envelope('Won', { id, written })], head ?? 'no-stream');
            winsAt.set(result.nextExpectedRevision, (winsAt.get(result.nextExpectedRevision) ?? 0) + 1);
            written += 1;
          } catch (error) {
            expect(error).toMatchObject({ code: 'conflict' });
            conflicts += 1;
          }
        }
      };
      await Promise.all(Array.from({ length: writers }, (_, id) => writer(id)));
      const last = await mark();

      const contest = await store.readStream(stream('contest'));
      expect(contest.map((event) => event.revision)).toEqual(Array.from({ length: writers * perWriter }, (_, revision) => revision));
      expect([...winsAt.values()].every((wins) => wins === 1)).toBe(true);
      expect(conflicts).toBeGreaterThan(0);
      for (let id = 0; id < writers; id += 1) {
        expect(contest.filter((event) => (event.data as { id: number }).id === id)).toHaveLength(perWriter);
      }
      const checker = createChainChecker();
      expect(contest.map((event) => checker.check(event))).toEqual(contest.map(() => null));
      expectStrictlyIncreasing(positions(contest));
      expect(ours(await readAllUpTo(before, last)).filter((event) => event.type === 'Won')).toHaveLength(writers * perWriter);
    });

    it('round-trips data and metadata intact', async () => {
      const data = {
        text: 'Grüße, 世界 — "quoted" \\ back\nslash',
        count: 42,
        ratio: 0.125,
        flag: false,
        nothing: null,
        list: [1, 'two', { three: 3 }],
        nested: { deeper: { deepest: ['a', 'b'] }, empty: {} },
      };
      const written = envelope('RoundTrip', data);
      const before = await mark();
      await store.append(stream('roundtrip'), [written], 'no-stream');

      // Written metadata comes back with the first link of the stream's hash chain added.
      const expectedMetadata = { ...written.metadata, previousHash: null, hash: expect.stringMatching(/^[0-9a-f]{64}$/) };
      const [fromStream] = await store.readStream(stream('roundtrip'));
      expect(fromStream?.data).toEqual(data);
      expect(fromStream?.metadata).toEqual(expectedMetadata);

      const fromLog = ours(await store.readAll({ after: before, limit: 10 }));
      expect(fromLog[0]?.data).toEqual(data);
      expect(fromLog[0]?.metadata).toEqual(expectedMetadata);

      const { received } = subscribe(before);
      await waitFor(() => ours(received).length >= 1, 'the round-trip event');
      expect(ours(received)[0]?.metadata).toEqual(expectedMetadata);
    });

    it('reports the position of the last event as the head of the log', async () => {
      const first = await store.append(stream('head'), [envelope('H1')], 'no-stream');
      expect(await store.headPosition()).toBeGreaterThanOrEqual(first.position);
      const second = await store.append(stream('head'), [envelope('H2'), envelope('H3')], 0);
      const head = await store.headPosition();
      expect(head).toBeGreaterThanOrEqual(second.position);
      expect(second.position).toBeGreaterThan(first.position);
      // None of this test's events lies beyond the head.
      expect(ours(await store.readAll({ after: head, limit: 10 }))).toEqual([]);
    });

    it('chains every event to the one before it in its stream by hash', async () => {
      await store.append(stream('chain'), [envelope('C0', { n: 0 }), envelope('C1', { n: 1 })], 'no-stream');
      await store.append(stream('other-chain'), [envelope('X0')], 'no-stream');
      await store.append(stream('chain'), [envelope('C2', { n: 2, when: new Date('2026-01-01T00:00:00Z') })], 1);

      const chain = await store.readStream(stream('chain'));
      expect(chain.map((event) => event.metadata.previousHash)).toEqual([null, chain[0]?.metadata.hash, chain[1]?.metadata.hash]);
      for (const event of chain) expect(event.metadata.hash).toBe(eventHash(event.streamName, event.revision, event));
      expect(new Set(chain.map((event) => event.metadata.hash)).size).toBe(3);
      // Another stream starts a chain of its own.
      expect((await store.readStream(stream('other-chain')))[0]?.metadata.previousHash).toBeNull();

      const checker = createChainChecker();
      const breaks = [...chain, ...(await store.readStream(stream('other-chain')))].map((event) => checker.check(event));
      expect(breaks).toEqual([null, null, null, null]);
      // The same event with different data no longer matches its hash.
      const edited = { ...chain[2], data: { n: 3 } } as RecordedEvent;
      expect(createChainChecker().check(edited)).toMatchObject({ revision: 2 });
    });

    it("keeps the chain whole when 'any' writers append to one stream at once", async () => {
      await Promise.all(Array.from({ length: 12 }, (_, index) => store.append(stream('busy'), [envelope(`B${index}`)], 'any')));

      const busy = await store.readStream(stream('busy'));
      expect(busy).toHaveLength(12);
      const checker = createChainChecker();
      expect(busy.map((event) => checker.check(event))).toEqual(busy.map(() => null));
    });
  });
}
