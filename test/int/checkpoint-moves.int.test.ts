import type { MikroORM } from '@mikro-orm/postgresql';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
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

it('writes the moves asked for in one tick in one statement, each forward only', async () => {
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
  const move = createCheckpointMoves(orm);
  // a twice in the tick (the later, further position wins), b once, c behind where it is.
  await Promise.all([move('a', 12), move('b', 11), move('a', 15), move('c', 20)]);
  expect(statements.filter((sql) => /^update\b.*projection_checkpoints/s.test(sql))).toHaveLength(1);
  expect(await positions()).toEqual({ a: 15, b: 11, c: 50 });

  // A later tick is a statement of its own.
  await move('b', 30);
  expect(statements.filter((sql) => /^update\b.*projection_checkpoints/s.test(sql))).toHaveLength(2);
  expect(await positions()).toEqual({ a: 15, b: 30, c: 50 });
});
