import { FILE_NAME_PATTERN, FILE_NAME_RULE } from '../../../domain/renders/file-names.js';
import { renderCost } from '../../../domain/renders/pricing.js';
import type { OutputFormat } from '../../../domain/renders/output-formats.js';
import { DomainError, validationError } from '../../../domain/shared/errors.js';
import { assertJsonFieldSizes } from '../../../domain/shared/json-size.js';
import type { TemplateView } from '../../ports/read-models.js';
import { buildSpec } from '../../renders/request-render/render-spec.js';
import type { BatchRow } from '../batch-rows.js';

/** Rows a refusal names at most; the count of the others is said after them. */
const NAMED_ROWS = 20;

/** The keys a row may give: the template's properties (canvas) or merge fields (html-editor). */
const keysOf = (template: TemplateView): ReadonlySet<string> =>
  new Set(template.editor === 'html-editor' ? template.mergeFields : template.properties.map((property) => property.key));

/** What is wrong with one row, each line naming its column, or what its render costs. */
const checkRow = (template: TemplateView, keys: ReadonlySet<string>, row: BatchRow, outputFormat: OutputFormat | undefined): { problems: string[]; cost: number } => {
  const problems: string[] = [];
  if (row.fileName !== undefined && !FILE_NAME_PATTERN.test(row.fileName)) problems.push(`fileName: ${FILE_NAME_RULE}`);
  // A key the template does not use would blank nothing and change nothing: a misspelt column, said now.
  const unused = Object.keys(row.data ?? {}).filter((key) => !keys.has(key));
  for (const key of unused) problems.push(`${key}: the template has no ${template.editor === 'html-editor' ? 'merge field' : 'property'} ${key}`);
  if (unused.length > 0) return { problems, cost: 0 };
  try {
    assertJsonFieldSizes({ data: row.data, metadata: row.metadata });
    const spec = buildSpec(template, { template: template.id, data: { ...row.data }, outputFormat }, 'check');
    return { problems, cost: renderCost(spec.format, spec.duration, false) };
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== 'validation') throw error;
    problems.push(...(error.details.length > 0 ? error.details : [error.message]).map((detail) => detail.replace(/^data\./, '')));
    return { problems, cost: 0 };
  }
};

/**
 * Every row checked as its render would be, before anything is recorded: one 400 naming up to 20
 * bad rows by number (from 1) and column. Answers what the rows cost if none is a cache hit.
 */
export const checkRows = (template: TemplateView, rows: readonly BatchRow[], outputFormat: OutputFormat | undefined): number => {
  const keys = keysOf(template);
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
