import { CsvError, parse } from 'csv-parse/sync';
import type { CsvReader, CsvTable } from '../../application/ports/batch-files.js';
import { validationError } from '../../domain/shared/errors.js';

/** Enough lines to fix a file by; a file wrong on every row would otherwise answer with a list as long as itself. */
const MAX_LISTED_PROBLEMS = 10;

/** What the parser's refusals mean to someone editing the file in a spreadsheet or a text editor. */
const PARSER_PROBLEMS: Readonly<Record<string, string>> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted value starting on this row is never closed; the rest of the file is inside it',
  CSV_INVALID_CLOSING_QUOTE: 'a quoted value is followed by more text before the next comma',
  INVALID_OPENING_QUOTE: 'a quote inside a value that does not start with one; quote the whole value and double the quote inside ("5"" screen")',
};

const refuseCsv = (problems: readonly string[]) => {
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS);
  const unlisted = problems.length - listed.length;
  return validationError('The file is not a CSV table that can be used', unlisted > 0 ? [...listed, `and ${unlisted} more problems of the same kinds`] : listed);
};

/**
 * UTF-8 or nothing: a file saved in another encoding would otherwise fill templates with mojibake.
 * The decoder drops a byte order mark. Invalid bytes are looked for line by line to say where they
 * are: a newline byte never occurs inside a multi-byte UTF-8 sequence, so each line decodes alone.
 */
const decodeUtf8 = (content: Buffer): string => {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(content);
  } catch {
    const lineDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    let start = 0;
    for (let line = 1; ; line += 1) {
      const newline = content.indexOf(0x0a, start);
      const end = newline === -1 ? content.length : newline;
      try {
        lineDecoder.decode(content.subarray(start, end));
      } catch {
        throw refuseCsv([`line ${line}: has bytes that are not UTF-8 text; save the file as "CSV UTF-8"`]);
      }
      start = end + 1;
    }
  }
};

interface ParsedRecord {
  readonly cells: readonly string[];
  /** The parser counts lines to a record's end. */
  readonly lastLine: number;
}

/** A record with line breaks inside its quoted values started that many lines before its last. */
const firstLineOf = ({ cells, lastLine }: ParsedRecord): number =>
  lastLine - cells.reduce((newlines, cell) => newlines + cell.split('\n').length - 1, 0);

/** Where the row holding a never-closed quote begins: the first line with something on it after the last complete row. */
const firstFilledLineAfter = (text: string, lastCompleteLine: number): number => {
  let offset = 0;
  for (let line = 0; line < lastCompleteLine; line += 1) offset = text.indexOf('\n', offset) + 1;
  const emptyLines = /(?:\r?\n)*/y;
  emptyLines.lastIndex = offset;
  const skipped = emptyLines.exec(text)?.[0] ?? '';
  return lastCompleteLine + 1 + skipped.split('\n').length - 1;
};

const parseRecords = (text: string, maxRecords: number): ParsedRecord[] => {
  const records: ParsedRecord[] = [];
  try {
    parse(text, {
      // Rows with the wrong number of cells are checked below, to say which and how.
      relax_column_count: true,
      skip_empty_lines: true,
      // Both, always: detection from the first row would glue together the rows of a file whose line endings are mixed.
      record_delimiter: ['\r\n', '\n'],
      // One record past the limit is enough to refuse; the rest of a huge file is never parsed.
      to: maxRecords + 1,
      // Kept here rather than in the parser's answer, which carries no line numbers.
      on_record: (cells, { lines }) => {
        records.push({ cells, lastLine: lines });
        return null;
      },
    });
    return records;
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    // The parser reports a never-closed quote where the file ends, far from the mistake.
    const line = error.code === 'CSV_QUOTE_NOT_CLOSED' ? firstFilledLineAfter(text, records.at(-1)?.lastLine ?? 0) : error.lines;
    throw refuseCsv([`line ${line}: ${PARSER_PROBLEMS[error.code] ?? error.message}`]);
  }
};

const columnNamesOf = (header: ParsedRecord): string[] => {
  const columns = header.cells.map((name) => name.trim());
  const problems: string[] = [];
  const firstColumnNamed = new Map<string, number>();
  columns.forEach((name, index) => {
    if (name === '') {
      problems.push(`line ${firstLineOf(header)}: column ${index + 1} has no name; the first row must name every column`);
      return;
    }
    const earlier = firstColumnNamed.get(name);
    if (earlier === undefined) firstColumnNamed.set(name, index);
    else problems.push(`line ${firstLineOf(header)}: columns ${earlier + 1} and ${index + 1} are both named "${name}"`);
  });
  if (problems.length > 0) throw refuseCsv(problems);
  return columns;
};

/** fromEntries defines own properties, so a column named "__proto__" is a column like any other. */
const recordOf = (columns: readonly string[], cells: readonly string[]): Record<string, string> =>
  Object.fromEntries(columns.flatMap((name, index) => {
    const value = cells[index];
    return value === undefined ? [] : [[name, value] as const];
  }));

/**
 * RFC 4180 over UTF-8. Values are kept exactly as written (only the column names are trimmed). A row
 * with fewer cells than the header leaves its missing trailing columns out of its record, rather than
 * giving them empty strings, so a template can tell "not given" from "given as empty".
 */
export const csvReader: CsvReader = {
  read(content, { maxRows }): CsvTable {
    const [header, ...rows] = parseRecords(decodeUtf8(content), maxRows + 1);
    if (header === undefined) throw refuseCsv(['line 1: the file is empty; its first row must name the columns']);
    const columns = columnNamesOf(header);
    const beyondTheLimit = rows[maxRows];
    if (beyondTheLimit !== undefined) throw refuseCsv([`line ${firstLineOf(beyondTheLimit)}: the file has more than ${maxRows} rows, the most one batch takes`]);
    const problems = rows
      .filter(({ cells }) => cells.length > columns.length)
      .map((row) => `line ${firstLineOf(row)}: has ${row.cells.length} cells, the header has ${columns.length}`);
    if (problems.length > 0) throw refuseCsv(problems);
    return { columns, rows: rows.map(({ cells }) => recordOf(columns, cells)) };
  },
};
