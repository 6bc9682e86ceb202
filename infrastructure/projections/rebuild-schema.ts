import type pg from 'pg';

/**
 * Shadow copies of the read-model tables in a schema of their own: same columns, defaults,
 * constraints and index names, so that swapping a shadow table in leaves the schema exactly as
 * the migrations made it (later migrations may name these indexes).
 *
 * Keys and indexes come in a second step, once the bulk of the rows is in: building a B-tree from
 * a full table costs a fraction of keeping it up to date row by row, so a table with several
 * indexes (the results table) is copied and then indexed much sooner than copied with them.
 */

export const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

const qualified = (schema: string, table: string) => `${quoteIdentifier(schema)}.${quoteIdentifier(table)}`;

/** `CREATE INDEX name ON public.table ...` aimed at the same table in `schema`. */
const retargetIndex = (definition: string, schema: string): string => {
  const retargeted = definition.replace(/^(CREATE (?:UNIQUE )?INDEX \S+ ON (?:ONLY )?)public\./, `$1${quoteIdentifier(schema)}.`);
  if (retargeted === definition) throw new Error(`cannot copy index definition: ${definition}`);
  return retargeted;
};

/** The tables of `schema`, without their keys and indexes. */
export const createShadowTables = async (client: pg.ClientBase, schema: string, tables: readonly string[]): Promise<void> => {
  await client.query(`create schema ${quoteIdentifier(schema)}`);
  for (const table of tables) {
    // Check constraints come along with their names; keys and indexes are added by indexShadowTables under theirs.
    await client.query(
      `create table ${qualified(schema, table)} (like ${qualified('public', table)} including defaults including identity including generated including constraints including storage including comments)`,
    );
  }
};

/** The live tables' keys, unique constraints and indexes, under their names, on the tables of `schema`. */
export const indexShadowTables = async (client: pg.ClientBase, schema: string, tables: readonly string[]): Promise<void> => {
  for (const table of tables) {
    const source = qualified('public', table);
    const constraints = await client.query<{ name: string; definition: string }>(
      `select conname as name, pg_get_constraintdef(oid) as definition from pg_constraint where conrelid = $1::regclass and contype in ('p', 'u', 'x') order by conname`,
      [source],
    );
    for (const { name, definition } of constraints.rows) {
      await client.query(`alter table ${qualified(schema, table)} add constraint ${quoteIdentifier(name)} ${definition}`);
    }
    const indexes = await client.query<{ definition: string }>(
      `select pg_get_indexdef(i.indexrelid) as definition from pg_index i
       where i.indrelid = $1::regclass and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`,
      [source],
    );
    for (const { definition } of indexes.rows) await client.query(retargetIndex(definition, schema));
  }
};

/** Moves `tables` from one schema to another; inside a transaction, readers see the move at its commit. */
export const moveTables = async (client: pg.ClientBase, tables: readonly string[], from: string, to: string): Promise<void> => {
  for (const table of tables) await client.query(`alter table ${qualified(from, table)} set schema ${quoteIdentifier(to)}`);
};

export const dropSchema = async (client: pg.ClientBase, schema: string): Promise<void> => {
  await client.query(`drop schema if exists ${quoteIdentifier(schema)} cascade`);
};

export interface TableDifference {
  readonly table: string;
  /** Rows in the live table that the rebuild does not have. */
  readonly onlyLive: number;
  /** Rows the rebuild has that the live table lacks. */
  readonly onlyRebuilt: number;
  /** A few of the differing rows, as JSON, to show what differs. */
  readonly samples: readonly { readonly side: 'live' | 'rebuilt'; readonly row: unknown }[];
}

const SAMPLES = 3;

/** Compares whole rows (as jsonb, so every column type compares), counting duplicates too. */
export const compareTables = async (client: pg.ClientBase, table: string, live: string, rebuilt: string, where = 'true'): Promise<TableDifference | null> => {
  const rows = (schema: string) => `select to_jsonb(t) as row from ${qualified(schema, table)} t where ${where}`;
  const difference = async (a: string, b: string) => {
    const query = `select row from (${rows(a)} except all ${rows(b)}) d`;
    const count = await client.query<{ count: string }>(`select count(*) as count from (${query}) c`);
    const samples = await client.query<{ row: unknown }>(`${query} limit ${SAMPLES}`);
    return { count: Number(count.rows[0]?.count ?? 0), samples: samples.rows.map((sample) => sample.row) };
  };
  const onlyLive = await difference(live, rebuilt);
  const onlyRebuilt = await difference(rebuilt, live);
  if (onlyLive.count === 0 && onlyRebuilt.count === 0) return null;
  return {
    table,
    onlyLive: onlyLive.count,
    onlyRebuilt: onlyRebuilt.count,
    samples: [...onlyLive.samples.map((row) => ({ side: 'live' as const, row })), ...onlyRebuilt.samples.map((row) => ({ side: 'rebuilt' as const, row }))],
  };
};
