import { describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/shared/errors.js';
import { csvReader } from '../../infrastructure/batches/csv-reader.js';

const LIMITS = { maxRows: 10_000 };

const read = (content: string | Buffer, limits = LIMITS) => csvReader.read(typeof content === 'string' ? Buffer.from(content, 'utf8') : content, limits);

/** The refusal's lines, as the caller sees them. */
const refusalOf = (content: string | Buffer, limits = LIMITS): readonly string[] => {
  try {
    read(content, limits);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'validation') return error.details;
    throw error;
  }
  throw new Error('the file was accepted');
};

describe('CSV reader', () => {
  it('reads the header as column names and each row as a record keyed by them', () => {
    expect(read('name,city\nAda,London\nGrace,Arlington\n')).toEqual({
      columns: ['name', 'city'],
      rows: [
        { name: 'Ada', city: 'London' },
        { name: 'Grace', city: 'Arlington' },
      ],
    });
  });

  it('reads quoted values with commas, doubled quotes and line breaks in them, whatever the line endings', () => {
    const table = read('title,note\r\n"Hello, world","She said ""hi"""\r\n"two\r\nlines","a\nb"\nlast,row');
    expect(table.rows).toEqual([
      { title: 'Hello, world', note: 'She said "hi"' },
      { title: 'two\r\nlines', note: 'a\nb' },
      { title: 'last', note: 'row' },
    ]);
  });

  it('keeps values as written, trimming only the column names', () => {
    expect(read(' name , city \n  Ada  ," London "\n')).toEqual({ columns: ['name', 'city'], rows: [{ name: '  Ada  ', city: ' London ' }] });
  });

  it('drops a UTF-8 byte order mark and reads text in any script', () => {
    const table = read(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('名前,ville\n東京,Zürich\n')]));
    expect(table).toEqual({ columns: ['名前', 'ville'], rows: [{ 名前: '東京', ville: 'Zürich' }] });
  });

  it('skips entirely empty lines but keeps a row of empty values', () => {
    expect(read('a,b\n\n1,2\r\n\r\n,\n\n').rows).toEqual([
      { a: '1', b: '2' },
      { a: '', b: '' },
    ]);
  });

  it('leaves the missing trailing cells of a short row out of its record', () => {
    const [short] = read('a,b,c\n1\n').rows;
    expect(short).toEqual({ a: '1' });
    expect(short).not.toHaveProperty('b');
  });

  it('reads a column named like an object property as a column', () => {
    const [row] = read('__proto__,constructor\nx,y\n').rows;
    expect(Object.keys(row ?? {})).toEqual(['__proto__', 'constructor']);
    expect(row?.['__proto__']).toBe('x');
  });

  it('refuses an empty file, and one of empty lines only', () => {
    expect(refusalOf('')).toEqual(['line 1: the file is empty; its first row must name the columns']);
    expect(refusalOf('\r\n\n')).toEqual(['line 1: the file is empty; its first row must name the columns']);
  });

  it('refuses a column with no name and a name given twice, saying which columns', () => {
    expect(refusalOf('a, ,b\n1,2,3\n')).toEqual(['line 1: column 2 has no name; the first row must name every column']);
    expect(refusalOf('name,city, name\n')).toEqual(['line 1: columns 1 and 3 are both named "name"']);
  });

  it('refuses rows with more cells than the header, naming the line each starts on', () => {
    expect(refusalOf('a,b,c,d\n1,2,3,4\n"x\ny",2,3,4,5\n\n1,2,3,4,5,6\n')).toEqual([
      'line 3: has 5 cells, the header has 4',
      'line 6: has 6 cells, the header has 4',
    ]);
  });

  it('lists at most ten problems and counts the rest', () => {
    const problems = refusalOf(`a\n${'1,2\n'.repeat(25)}`);
    expect(problems).toHaveLength(11);
    expect(problems.at(-1)).toBe('and 15 more problems of the same kinds');
  });

  it('refuses malformed quoting, naming the line', () => {
    expect(refusalOf('a,b\n1,2\n3,"open\n4,5\n')).toEqual(['line 3: a quoted value starting on this row is never closed; the rest of the file is inside it']);
    expect(refusalOf('a,b\r\n"1\r\n",2\r\n\r\n\r\n3,"open\r\n4,5\r\n')).toEqual(['line 6: a quoted value starting on this row is never closed; the rest of the file is inside it']);
    expect(refusalOf('a,"b\n')).toEqual(['line 1: a quoted value starting on this row is never closed; the rest of the file is inside it']);
    expect(refusalOf('a,b\n"1"x,2\n')).toEqual(['line 2: a quoted value is followed by more text before the next comma']);
    expect(refusalOf('a,b\n1,5" screen\n')[0]).toMatch(/^line 2: a quote inside a value/);
  });

  it('refuses bytes that are not UTF-8, naming their line', () => {
    const latin1 = Buffer.concat([Buffer.from('name\nAda\n'), Buffer.from([0x5a, 0xfc, 0x72, 0x69, 0x63, 0x68]), Buffer.from('\n')]);
    expect(refusalOf(latin1)).toEqual(['line 3: has bytes that are not UTF-8 text; save the file as "CSV UTF-8"']);
  });

  it('takes exactly the most rows allowed and refuses one more, naming the limit', () => {
    expect(read(`n\n${'1\n'.repeat(3)}`, { maxRows: 3 }).rows).toHaveLength(3);
    expect(refusalOf(`n\n${'1\n'.repeat(4)}`, { maxRows: 3 })).toEqual(['line 5: the file has more than 3 rows, the most one batch takes']);
  });

  it('refuses a file of 10,001 rows under a limit of 10,000, naming the limit', () => {
    const rows = Array.from({ length: 10_001 }, (_, index) => `${index},row ${index}`).join('\n');
    expect(refusalOf(`id,label\n${rows}\n`)).toEqual(['line 10002: the file has more than 10000 rows, the most one batch takes']);
  });

  it('stops parsing a huge file at the first row past the limit', () => {
    // A quote never closed at the very end would be refused instead, had the parser gone on to it.
    const huge = `n\n${'1\n'.repeat(1_000_000)}"never closed\n`;
    expect(refusalOf(huge, { maxRows: 10 })).toEqual(['line 12: the file has more than 10 rows, the most one batch takes']);
  });

  // Every character one the parser must look at twice: commas, doubled quotes and line breaks inside quotes.
  it('reads a 20 MB single value of commas, quotes and line breaks in bounded time', { timeout: 60_000 }, () => {
    const value = 'x,"\n'.repeat(5 * 1024 * 1024);
    const file = Buffer.from(`only\n"${value.replaceAll('"', '""')}"\n`);
    const started = performance.now();
    const table = csvReader.read(file, LIMITS);
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(table.rows[0]?.['only']).toBe(value);
  });
});
