import pg from 'pg';
import type { AccountLedgerRow, LedgerReadModel, LedgerSnapshot, ResultPresenceRow } from '../../application/ports/audit.js';
import { accountsProjection } from '../projections/accounts-projection.js';
import { resultsProjection } from '../projections/results-projection.js';

/** Result rows fetched per round trip: a snapshot of millions of results is read in keyset pages. */
const PAGE_SIZE = 5_000;

/**
 * Reads the ledger columns of the read models inside one REPEATABLE READ transaction: projections
 * write rows and checkpoint in one transaction, so the snapshot's rows are exactly the effect of
 * the events up to the checkpoints it sees, whatever the projections do meanwhile.
 */
export const createLedgerReadModel = (connectionString: string): LedgerReadModel => ({
  async snapshot(orgId) {
    const client = new pg.Client({ connectionString });
    await client.connect();
    try {
      await client.query('begin isolation level repeatable read read only');
      const checkpoints = await client.query<{ name: string; position: string }>('select name, position from projection_checkpoints where name = any($1)', [
        [accountsProjection.name, resultsProjection.name],
      ]);
      const positionOf = (name: string) => Number(checkpoints.rows.find((row) => row.name === name)?.position ?? -1);
      const orgFilter = orgId === undefined ? '' : 'and org_id = $2';
      const orgParams = orgId === undefined ? [] : [orgId];

      const snapshot: LedgerSnapshot = {
        accountsPosition: positionOf(accountsProjection.name),
        resultsPosition: positionOf(resultsProjection.name),
        async *accounts(): AsyncGenerator<AccountLedgerRow> {
          const { rows } = await client.query<{ org_id: string; credits_total: number; credits_used: number; uploads_used: string }>(
            `select org_id, credits_total, credits_used, uploads_used from accounts where true ${orgId === undefined ? '' : 'and org_id = $1'} order by org_id`,
            orgParams,
          );
          for (const row of rows) {
            yield { orgId: row.org_id, creditsTotal: row.credits_total, creditsUsed: row.credits_used, uploadsUsed: Number(row.uploads_used) };
          }
        },
        async *results(): AsyncGenerator<ResultPresenceRow> {
          let after = '';
          for (;;) {
            const { rows } = await client.query<{ request_id: string; org_id: string; status: string; deleted: boolean }>(
              `select request_id, org_id, status, deleted from results where request_id > $1 ${orgFilter} order by request_id limit ${PAGE_SIZE}`,
              [after, ...orgParams],
            );
            for (const row of rows) yield { requestId: row.request_id, orgId: row.org_id, status: row.status, deleted: row.deleted };
            const last = rows.at(-1);
            if (!last || rows.length < PAGE_SIZE) return;
            after = last.request_id;
          }
        },
        async close() {
          await client.query('rollback').catch(() => {});
          await client.end();
        },
      };
      return snapshot;
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
  },
});
