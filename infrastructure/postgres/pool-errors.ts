import type pg from 'pg';

/**
 * A connection that breaks while idle in the pool is reported on the pool; one that breaks while
 * checked out, between two queries (PostgreSQL killed, a reset), is reported on the connection
 * itself, where pg leaves no listener: unheard, that error would end the process. Both are heard
 * here; the query that next uses such a connection fails and the caller's handling takes over.
 */
export const reportPoolErrors = (pool: pg.Pool, report: (message: string) => void): void => {
  pool.on('error', (error) => report(error.message));
  pool.on('connect', (client) => {
    client.on('error', (error) => report(`connection lost while in use: ${error.message}`));
  });
};
