import { MikroORM } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { CONNECTION_BOUNDS } from '../postgres/connection-bounds.js';
import { readModelEntities } from './entities.js';

const migrationsPath = fileURLToPath(new URL('./migrations', import.meta.url));

export const ormConfig = (clientUrl: string) => ({
  clientUrl,
  entities: readModelEntities,
  extensions: [Migrator],
  migrations: { path: migrationsPath, pathTs: migrationsPath, glob: '!(*.d).{js,ts}', transactional: true, snapshot: false, silent: true },
  // Read models are rebuilt from events, so a projection never needs lazy loading or an identity map across calls.
  allowGlobalContext: false,
  debug: false,
  /*
   * Every table here is derived from the event log, and each projection commits its rows with its
   * checkpoint: a commit a crash loses goes with its checkpoint and is applied again from the log,
   * which is durable on its own. So these commits do not wait for the WAL flush, and the event
   * store's fsync'd appends no longer queue behind the projections' (up to three per batch).
   */
  driverOptions: { options: '-c synchronous_commit=off', ...CONNECTION_BOUNDS },
});

/** Any constant: it only has to be the same for every process migrating this database. */
const MIGRATION_LOCK = 72_201_911;

/**
 * Connects and applies pending migrations, so the schema is always current when the service starts.
 * API and workers start together in production: a session lock lets one migrate while the others wait.
 */
export const openReadModels = async (clientUrl: string): Promise<MikroORM> => {
  const orm = await MikroORM.init(ormConfig(clientUrl));
  const lock = new pg.Client({ connectionString: clientUrl });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await orm.migrator.up();
  } finally {
    await lock.end();
  }
  return orm;
};
