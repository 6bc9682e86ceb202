import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { EventStore } from '../../application/ports/event-store.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { createPostgresEventStore } from '../../infrastructure/event-store/postgres-event-store.js';
import type { Projection } from '../../infrastructure/projections/projection.js';
import { createProjectionRunner } from '../../infrastructure/projections/projection-runner.js';
import { openReadModels } from '../../infrastructure/read-models/orm.js';
import { createTestDatabase } from '../support/database.js';

let eventStore: EventStore;
let orm: MikroORM;

beforeAll(async () => {
  const url = await createTestDatabase();
  eventStore = await createPostgresEventStore({ connectionString: url });
  orm = await openReadModels(url);
});
afterAll(async () => {
  await eventStore?.close();
  await orm?.close();
});

const envelope = (n: number) => ({
  type: 'Noted',
  data: { n },
  metadata: { eventId: `e-${n}-${Date.now()}`, schemaVersion: 1, occurredAt: new Date().toISOString(), orgId: 'o', actor: 'system', correlationId: 'c', causationId: 'c' },
});

it('recovers from a failing event: resubscribes from the checkpoint and loses nothing', async () => {
  const seen: number[] = [];
  let failures = 1;
  const flaky: Projection = {
    name: `flaky-${Date.now()}`,
    async apply(_em, events) {
      for (const event of events) {
        const { n } = event.data as { n: number };
        if (n === 2 && failures-- > 0) throw new Error('transient failure');
        seen.push(n);
      }
    },
  };
  const runner = createProjectionRunner({ orm, eventStore, projection: flaky, logger: createLogger('silent') });
  await runner.start();
  try {
    await eventStore.append('notes-1', [envelope(1)], 'no-stream');
    await eventStore.append('notes-1', [envelope(2)], 0);
    const last = await eventStore.append('notes-1', [envelope(3)], 1);
    expect(await runner.waitFor(last.position, 20_000)).toBe(true);
    // A failed batch is rolled back and applied again whole, so an event delivered in the same batch
    // before the failing one (1, when 1 and 2 arrive together) is applied again; none is lost or skipped.
    expect([...new Set(seen)]).toEqual([1, 2, 3]);
    expect(seen.filter((n) => n === 2)).toEqual([2]);
    expect(seen.at(-1)).toBe(3);
    expect(runner.isLive()).toBe(true);
  } finally {
    await runner.stop();
  }
});

it('lets concurrent processes migrate the same fresh database', async () => {
  const url = await createTestDatabase();
  const orms = await Promise.all([openReadModels(url), openReadModels(url), openReadModels(url)]);
  const applied = (await orms[0]!.em.getConnection().execute('select name from mikro_orm_migrations')) as { name: string }[];
  await Promise.all(orms.map((opened) => opened.close()));
  // Each migration ran exactly once although three processes raced to apply it.
  expect(applied.length).toBe(new Set(applied.map((row) => row.name)).size);
  expect(applied.length).toBeGreaterThanOrEqual(2);
});

it('moves the checkpoint over events the projection does not handle without applying them', async () => {
  const stream = `picky-${Date.now()}`;
  const seen: number[] = [];
  const picky: Projection = {
    name: `picky-${Date.now()}`,
    handles: (event) => event.streamName === stream && (event.data as { n: number }).n % 2 === 0,
    async apply(_em, events) {
      for (const event of events) if (event.streamName === stream) seen.push((event.data as { n: number }).n);
    },
  };
  const runner = createProjectionRunner({ orm, eventStore, projection: picky, logger: createLogger('silent') });
  await runner.start();
  const storedCheckpoint = async () =>
    Number(((await orm.em.getConnection().execute('select position from projection_checkpoints where name = ?', [picky.name])) as { position: string }[])[0]?.position);
  try {
    const odd = await eventStore.append(stream, [envelope(1), envelope(3)], 'no-stream');
    expect(await runner.waitFor(odd.position, 20_000)).toBe(true);
    expect(seen).toEqual([]);
    // Written a moment later: readers wait for the runner, not the table.
    await vi.waitFor(async () => expect(await storedCheckpoint()).toBe(odd.position));

    const mixed = await eventStore.append(stream, [envelope(5), envelope(6)], odd.nextExpectedRevision);
    expect(await runner.waitFor(mixed.position, 20_000)).toBe(true);
    // A batch the projection handles goes through `apply` whole; `apply` ignores what is not its own.
    expect(seen).toContain(6);
    // A batch it applies moves the checkpoint with its rows.
    expect(await storedCheckpoint()).toBe(mixed.position);
  } finally {
    await runner.stop();
  }
});

it('after a failure goes on from the checkpoint in the table, applying again the commits a restarted database lost', async () => {
  const seen: number[] = [];
  let failures = 1;
  const name = `lossy-${Date.now()}`;
  const stream = `lossy-${Date.now()}`;
  const lossy: Projection = {
    name,
    async apply(_em, events) {
      for (const event of events.filter((candidate) => candidate.streamName === stream)) {
        const { n } = event.data as { n: number };
        if (n === 4 && failures-- > 0) throw new Error('connection terminated unexpectedly');
        seen.push(n);
      }
    },
  };
  const runner = createProjectionRunner({ orm, eventStore, projection: lossy, logger: createLogger('silent') });
  await runner.start();
  try {
    const first = await eventStore.append(stream, [envelope(1)], 'no-stream');
    await eventStore.append(stream, [envelope(2)], 0);
    const third = await eventStore.append(stream, [envelope(3)], 1);
    expect(await runner.waitFor(third.position, 20_000)).toBe(true);
    // The database crashes and comes back without the commits of 2 and 3 (read models commit without
    // waiting for the disk): its checkpoint stands at 1 again. The next batch then fails on the way down.
    await orm.em.fork().getConnection().execute('update projection_checkpoints set position = ? where name = ?', [first.position, name]);
    const fourth = await eventStore.append(stream, [envelope(4)], 2);
    expect(await runner.waitFor(fourth.position, 20_000)).toBe(true);
    expect(seen).toEqual([1, 2, 3, 2, 3, 4]);
    const [row] = await orm.em.fork().getConnection().execute<{ position: string }[]>('select position from projection_checkpoints where name = ?', [name]);
    expect(Number(row?.position)).toBe(fourth.position);
  } finally {
    await runner.stop();
  }
});
