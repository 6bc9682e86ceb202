import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { ensureDatabase } from '../../infrastructure/postgres/embedded-postgres.js';

/** Creates an empty database, unique to the caller, on the run's server and returns its URL. */
export async function createTestDatabase(): Promise<string> {
  const adminUrl = inject('databaseAdminUrl');
  if (!adminUrl) {
    throw new Error('no test PostgreSQL: createTestDatabase() is for the int and e2e projects (vitest --project int|e2e)');
  }
  return ensureDatabase(adminUrl, `test_${randomUUID().replaceAll('-', '')}`);
}
