/** Why a CSV could not be read, with the line it stopped on (numbered from 1). */
export class CsvError extends Error {}

/**
 * RFC 4180 records: fields split by commas, records by CRLF or LF; a quoted field may hold commas,
 * line breaks and doubled quotes. A byte order mark and blank lines are skipped, as the service's
 * reader does, so the rows counted here are the rows the batch will have.
 */
export const parseCsv = (text: string): string[][] => {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let afterQuote = false;
  let line = 1;
  let quoteLine = 1;
  const endField = () => {
    record.push(field);
    field = '';
    afterQuote = false;
  };
  const endRecord = () => {
    endField();
    if (!(record.length === 1 && record[0] === '')) records.push(record);
    record = [];
  };
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  for (let index = 0; index < source.length; index += 1) {
    const char = source[index];
    if (quoted) {
      if (char === '"') {
        if (source[index + 1] === '"') {
          field += '"';
          index += 1;
        } else {
          quoted = false;
          afterQuote = true;
        }
      } else {
        if (char === '\n') line += 1;
        field += char;
      }
    } else if (char === ',') {
      endField();
    } else if (char === '\r' && source[index + 1] === '\n') {
      // The \n ends the record.
    } else if (char === '\n' || char === '\r') {
      endRecord();
      line += 1;
    } else if (afterQuote) {
      throw new CsvError(`line ${line}: text after a closing quote`);
    } else if (char === '"' && field === '') {
      quoted = true;
      quoteLine = line;
    } else {
      field += char;
    }
  }
  if (quoted) throw new CsvError(`line ${quoteLine}: a quote opened here is never closed`);
  if (field !== '' || record.length > 0 || afterQuote) endRecord();
  return records;
};

/** A CSV's header row and its records as objects by column name; a short record leaves its last columns empty. */
export const tableOf = (text: string): { columns: string[]; rows: Record<string, string>[] } => {
  const [header, ...records] = parseCsv(text);
  if (!header) throw new CsvError('the file is empty: it needs a header row naming the columns');
  const columns = header.map((name) => name.trim());
  const named = columns.filter(Boolean);
  const repeated = named.find((name, index) => named.indexOf(name) !== index);
  if (repeated) throw new CsvError(`line 1: the column "${repeated}" is named twice`);
  const rows = records.map((record, index) => {
    if (record.length > columns.length) throw new CsvError(`row ${index + 1}: ${record.length} values for ${columns.length} columns`);
    return Object.fromEntries(columns.map((column, at) => [column, record[at] ?? '']));
  });
  return { columns, rows };
};
