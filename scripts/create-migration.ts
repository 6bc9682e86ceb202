// Writes a migration for the difference between the read-model entities and an up-to-date database.
// Usage: DATABASE_URL=postgres://... npm run migration:create
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../infrastructure/read-models/orm.js';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required to diff the schema');
const orm = await MikroORM.init(ormConfig(url));
await orm.migrator.up();
const result = await orm.migrator.create();
console.log(result.fileName ? `created ${result.fileName}` : 'schema is up to date');
await orm.close();
