import type { BatchCounts } from '../../domain/batches/batch-events.js';
import type { BatchReadModel, BatchRowResult } from '../ports/read-models.js';
import { rowRequestId } from './batch-rows.js';

/** Rows whose results are looked up in one query. */
const LOOKUP_ROWS = 500;

/** The results of a batch's rows 1 to `rows` that exist, by row number. */
export const rowResults = async (batches: Pick<BatchReadModel, 'rowResults'>, orgId: string, batchId: string, rows: number): Promise<Map<number, BatchRowResult>> => {
  const byRow = new Map<number, BatchRowResult>();
  for (let first = 1; first <= rows; first += LOOKUP_ROWS) {
    const numbers = Array.from({ length: Math.min(LOOKUP_ROWS, rows - first + 1) }, (_, index) => first + index);
    const found = await batches.rowResults(orgId, numbers.map((row) => rowRequestId(batchId, row)));
    for (const row of numbers) {
      const result = found.get(rowRequestId(batchId, row));
      if (result) byRow.set(row, result);
    }
  }
  return byRow;
};

/** What the rows' results add up to; rows refused when their turn came count as failed. `skipped` is the caller's. */
export const countRows = (results: ReadonlyMap<number, BatchRowResult>, refused: number): Omit<BatchCounts, 'skipped'> => {
  const made = [...results.values()].filter((result) => result.status === 'done');
  return {
    done: made.length,
    failed: [...results.values()].filter((result) => result.status === 'failed').length + refused,
    cached: made.filter((result) => result.cached).length,
    creditsCharged: made.filter((result) => !result.cached).reduce((sum, result) => sum + result.credits, 0),
  };
};
