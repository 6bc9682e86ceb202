import { createHash } from 'node:crypto';
import type { StoredRows } from '../../domain/batches/batch-events.js';
import type { FileStorage } from '../ports/file-storage.js';

/** One row of a batch: the values of one render, the name of its file, and metadata kept with its result. */
export interface BatchRow {
  readonly data?: Readonly<Record<string, unknown>>;
  readonly fileName?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** The request id of a batch's row (numbered from 1): derived, so every retry, replay or restart of the row names the same request. */
export const rowRequestId = (batchId: string, row: number): string => {
  const hex = createHash('sha256').update(`batch-row\n${batchId}\n${row}`).digest('hex');
  // Shaped as an RFC 9562 UUID of version 8 (custom), so it sits among the uuidv7 ids of other requests.
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

export const rowsStorageKey = (orgId: string, batchId: string) => `${orgId}/batches/${batchId}/rows.jsonl`;

/** Rows as they are stored: one JSON object per line, in row order. */
export const encodeRows = (rows: readonly BatchRow[]): Buffer => Buffer.from(rows.map((row) => JSON.stringify(row)).join('\n'), 'utf8');

export const storeRows = async (storage: FileStorage, storageKey: string, rows: readonly BatchRow[]): Promise<StoredRows> => {
  const content = encodeRows(rows);
  await storage.put(storageKey, content, 'application/x-ndjson');
  return { storageKey, sha256: createHash('sha256').update(content).digest('hex'), bytes: content.length };
};

/** The rows a batch was asked with, checked against the digest its request recorded. */
export const loadRows = async (storage: FileStorage, stored: StoredRows): Promise<BatchRow[]> => {
  const content = await storage.get(stored.storageKey);
  if (!content) throw new Error(`the rows of the batch are missing from storage (${stored.storageKey})`);
  if (createHash('sha256').update(content).digest('hex') !== stored.sha256) throw new Error(`the rows of the batch do not match their digest (${stored.storageKey})`);
  return content.toString('utf8').split('\n').map((line) => JSON.parse(line) as BatchRow);
};

/** The column of a CSV that names each row's file rather than a value of the template. */
export const FILE_NAME_COLUMN = 'fileName';

/**
 * CSV records as rows: each column a value of the template, `fileName` the row's file name. An empty
 * cell leaves its value out, so the template's own value (or an empty merge field) stands.
 */
export const rowsOfCsv = (records: readonly Readonly<Record<string, string>>[]): BatchRow[] =>
  records.map((record) => {
    const data: Record<string, string> = {};
    for (const [column, value] of Object.entries(record)) {
      if (column !== FILE_NAME_COLUMN && value !== '') data[column] = value;
    }
    const fileName = record[FILE_NAME_COLUMN];
    return { data, ...(fileName ? { fileName } : {}) };
  });
