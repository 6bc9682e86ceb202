import type { MikroORM } from '@mikro-orm/postgresql';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, expect, it, onTestFinished, vi } from 'vitest';
import { createCheckpointMoves } from '../../infrastructure/projections/checkpoint-moves.js';
import { openReadModels } from '../../infrastructure/read-models/orm.js';
import { createTestDatabase } from '../support/database.js';

let orm: MikroORM;
const statements: string[] = [];

beforeAll(async () => {
  orm = await openReadModels(await createTestDatabase());
  await orm.em.getConnection().execute(`insert into projection_checkpoints (name, position) values ('a', 10), ('b', 10), ('c', 50)`);
});
afterAll(async () => {
  await orm?.close();
});

const positions = async () =>
  Object.fromEntries(
    (await orm.em.getConnection().execute<{ name: string; position: string }[]>(`select name, position from projection_checkpoints where name in ('a', 'b', 'c')`)).map(
      ({ name, position }) => [name, Number(position)],
    ),
  );

it('gathers the moves asked for within its window into one statement, each forward only, and gives a runner its own move back', async () => {
  // MikroORM's own copy of pg, which its statements go through.
  const { Client } = createRequire(import.meta.resolve('@mikro-orm/postgresql'))('pg') as { Client: { prototype: { query: (...args: unknown[]) => unknown } } };
  const query = Client.prototype.query;
  Client.prototype.query = function countedQuery(this: unknown, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
    if (text) statements.push(text);
    return query.apply(this, args);
  };
  onTestFinished(() => {
    Client.prototype.query = query;
  });
  const updates = () => statements.filter((sql) => /^update\b.*projection_checkpoints/s.test(sql)).length;
  const moves = createCheckpointMoves(orm, undefined, 50);
  // a twice (the further position wins), b once, c behind where it is: nothing is written at once.
  moves.later('a', 12);
  moves.later('b', 11);
  moves.later('a', 15);
  moves.later('c', 20);
  expect(updates()).toBe(0);
  await vi.waitFor(() => expect(updates()).toBe(1));
  expect(await positions()).toEqual({ a: 15, b: 11, c: 50 });

  // A runner about to write its checkpoint itself takes its move back before it is written...
  moves.later('b', 30);
  expect(await moves.settle('b')).toBeNull();
  await new Promise((resolve) => setTimeout(resolve, 150));
  expect(updates()).toBe(1);
  expect(await positions()).toEqual({ a: 15, b: 11, c: 50 });

  // ...or waits for it while it is being written, and learns where it left the checkpoint.
  moves.later('b', 45);
  const flushed = moves.flush();
  expect(await moves.settle('b')).toBe(45);
  await flushed;
  expect(updates()).toBe(2);
  expect(await positions()).toEqual({ a: 15, b: 45, c: 50 });
});
