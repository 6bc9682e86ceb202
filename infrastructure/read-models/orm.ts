import { MikroORM } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { fileURLToPath } from 'node:url';
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
});

/** Connects and applies pending migrations: the schema is always current when the service starts. */
export const openReadModels = async (clientUrl: string): Promise<MikroORM> => {
  const orm = await MikroORM.init(ormConfig(clientUrl));
  await orm.migrator.up();
  return orm;
};
