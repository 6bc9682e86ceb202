import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/**
 * Rows written into a table with COPY FROM STDIN, in its text format: PostgreSQL reads each value
 * with its column type's own input function, without the planning, parameters and JSON parsing of
 * the live projections' upsert (json_populate_recordset), and parses one chunk while the next is
 * encoded here.
 *
 * A value is written as the text json_populate_recordset would take from JSON.stringify of the
 * row, so a copied row equals the row a live projection writes: dates as their JSON (ISO) strings,
 * json and jsonb columns as JSON, arrays element by element, numbers that JSON cannot hold as null.
 */

export interface CopyColumn {
  /** The row object's property. */
  readonly property: string;
  readonly column: string;
}

type Encode = (value: unknown) => string | null;

const scalarText = (value: unknown): string | null => {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
  if (value instanceof Date) return value.toJSON();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
};

/** An array literal with every element quoted, which any element type's input function reads. */
const arrayText = (value: unknown): string | null => {
  if (!Array.isArray(value)) return scalarText(value);
  const elements = value.map((element) => {
    const text = element === null || element === undefined ? null : scalarText(element);
    return text === null ? 'NULL' : `"${text.replace(/["\\]/g, '\\$&')}"`;
  });
  return `{${elements.join(',')}}`;
};

const jsonText = (value: unknown): string | null => JSON.stringify(value) ?? null;

const SPECIAL = /[\\\n\r\t]/;
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
/** COPY's text format: backslash escapes for the separators and the backslash itself; \N is null. */
const field = (text: string | null): string => (text === null ? '\\N' : SPECIAL.test(text) ? text.replace(/[\\\n\r\t]/g, (character) => ESCAPES[character] ?? character) : text);

/** How each column's values are encoded, from the column's type in the catalog. */
const encoders = async (client: pg.ClientBase, table: string, columns: readonly CopyColumn[]): Promise<Encode[]> => {
  const types = await client.query<{ name: string; category: string; type: string }>(
    `select a.attname as name, t.typcategory as category, t.typname as type from pg_attribute a join pg_type t on t.oid = a.atttypid
     where a.attrelid = $1::regclass and a.attnum > 0 and not a.attisdropped`,
    [table],
  );
  return columns.map(({ column }) => {
    const found = types.rows.find((row) => row.name === column);
    if (!found) throw new Error(`${table} has no column ${column}`);
    if (found.type === 'json' || found.type === 'jsonb') return jsonText;
    return found.category === 'A' ? arrayText : scalarText;
  });
};

/** Lines are sent in chunks of about this many characters. */
const CHUNK = 1 << 16;

function* lines(properties: readonly string[], encode: readonly Encode[], rows: Iterable<object>) {
  let chunk = '';
  for (const row of rows) {
    const values = row as Record<string, unknown>;
    let line = '';
    for (let index = 0; index < properties.length; index++) {
      const value = values[properties[index] ?? ''];
      line += `${index === 0 ? '' : '\t'}${field(value === null || value === undefined ? null : (encode[index]?.(value) ?? null))}`;
    }
    chunk += `${line}\n`;
    if (chunk.length >= CHUNK) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk.length > 0) yield chunk;
}

/** Copies rows into tables (quoted, qualified names) on `client`, reading each table's column types once; columns left out take their defaults. */
export const createCopier = (client: pg.ClientBase) => {
  const encodersOf = new Map<string, Promise<Encode[]>>();
  return async (table: string, columns: readonly CopyColumn[], rows: Iterable<object>): Promise<void> => {
    let encode = encodersOf.get(table);
    if (!encode) {
      encode = encoders(client, table, columns);
      encodersOf.set(table, encode);
    }
    const list = columns.map(({ column }) => `"${column.replaceAll('"', '""')}"`).join(', ');
    const properties = columns.map(({ property }) => property);
    await pipeline(Readable.from(lines(properties, await encode, rows)), client.query(copyFrom(`copy ${table} (${list}) from stdin`)));
  };
};
