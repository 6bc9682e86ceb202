import { FILE_NAME_PATTERN, FILE_NAME_RULE } from '../../../domain/renders/file-names.js';
import type { OutputFormat } from '../../../domain/renders/output-formats.js';
import { validationError } from '../../../domain/shared/errors.js';
import type { TemplateView } from '../../ports/read-models.js';
import { checkRenderData, dataKeysOf } from '../../renders/check-render/check-render-data.js';
import type { BatchRow } from '../batch-rows.js';

/** Rows a refusal names at most; the count of the others is said after them. */
const NAMED_ROWS = 20;

/** What is wrong with one row, each line naming its column, or what its render costs. */
const checkRow = (template: TemplateView, keys: ReadonlySet<string>, row: BatchRow, outputFormat: OutputFormat | undefined): { problems: string[]; cost: number } => {
  const fileName = row.fileName !== undefined && !FILE_NAME_PATTERN.test(row.fileName) ? [`fileName: ${FILE_NAME_RULE}`] : [];
  const { problems, cost } = checkRenderData(template, { data: row.data, metadata: row.metadata, outputFormat }, keys);
  return { problems: [...fileName, ...problems], cost };
};

/**
 * Every row checked as its render would be, before anything is recorded: one 400 naming up to 20
 * bad rows by number (from 1) and column. Answers what the rows cost if none is a cache hit.
 */
export const checkRows = (template: TemplateView, rows: readonly BatchRow[], outputFormat: OutputFormat | undefined): number => {
  const keys = dataKeysOf(template);
  const bad: string[] = [];
  let badRows = 0;
  let credits = 0;
  rows.forEach((row, index) => {
    const { problems, cost } = checkRow(template, keys, row, outputFormat);
    if (problems.length > 0) {
      badRows += 1;
      if (badRows <= NAMED_ROWS) bad.push(...problems.map((problem) => `row ${index + 1}: ${problem}`));
    }
    credits += cost;
  });
  if (badRows > 0) {
    const more = badRows > NAMED_ROWS ? [`... and ${badRows - NAMED_ROWS} more rows`] : [];
    throw validationError(`${badRows} of ${rows.length} rows cannot be rendered; nothing was recorded`, [...bad, ...more]);
  }
  return credits;
};
