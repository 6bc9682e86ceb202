import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textLiteral } from '../../infrastructure/postgres/text-literal.js';
import { createTestDatabase } from '../support/database.js';

/** Texts written to fight the quote: its tag, a tag's start at the end, quotes, backslashes, SQL after them. */
const hostile = [
  '',
  '$event$',
  'a$event$b',
  'ends with $event',
  'ends with $even',
  'ends with $',
  '$',
  '$$',
  "it's",
  "'; drop table events; --",
  '$event$; drop table events; --',
  'back\\slash \\\' and \\',
  'E\'\\x41\'',
  '{"price":"$5","tag":"$event$"}',
  '日本語のテキスト',
];

describe('textLiteral', () => {
  let sql: pg.Client;
  beforeAll(async () => {
    sql = new pg.Client({ connectionString: await createTestDatabase() });
    await sql.connect();
  });
  afterAll(async () => {
    await sql.end();
  });

  /** What PostgreSQL reads the literals as, in a multi-statement query as the event store sends them. */
  const readBack = async (texts: readonly string[]) => {
    const results = (await sql.query(texts.map((text) => `select ${textLiteral(text)}::text as text`).join(';\n'))) as unknown as pg.QueryResult | pg.QueryResult[];
    return (Array.isArray(results) ? results : [results]).map((result) => (result.rows[0] as { text: string }).text);
  };

  it('reads back as the text itself, however the text fights the quote', async () => {
    expect(await readBack(hostile)).toEqual(hostile);
  });

  it('reads back as the text itself for any text without NUL (which PostgreSQL text cannot hold)', async () => {
    const texts = fc.sample(
      fc.string({ unit: fc.constantFrom('$', 'e', 'v', 'n', 't', "'", '\\', ';', ' ', 'x', '字') }).filter((text) => !text.includes('\0')),
      { numRuns: 300, seed: 24 },
    );
    expect(await readBack(texts)).toEqual(texts);
  });

  it('dollar-quotes ordinary JSON and falls back to escaping only where the quote cannot hold the text', () => {
    expect(textLiteral('{"a":"it\'s \\\\ fine"}')).toBe('$event${"a":"it\'s \\\\ fine"}$event$');
    expect(textLiteral('x$event$y').startsWith('$event$')).toBe(false);
    expect(textLiteral('x$event').startsWith('$event$')).toBe(false);
    expect(textLiteral('x$even')).toBe('$event$x$even$event$');
  });
});
