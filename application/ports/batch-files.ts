import type { Readable, Writable } from 'node:stream';

/** A CSV file read as a table: its header row's names, and one record per data row keyed by them. */
export interface CsvTable {
  readonly columns: readonly string[];
  readonly rows: readonly Readonly<Record<string, string>>[];
}

/**
 * Reads an uploaded CSV (RFC 4180, UTF-8 with or without a byte order mark, the first row naming
 * the columns). Throws a validation DomainError naming the line for a malformed file, a repeated or
 * empty column name, a row with more cells than the header, or more than `maxRows` data rows.
 */
export interface CsvReader {
  read(content: Buffer, limits: { readonly maxRows: number }): CsvTable;
}

/** One file of a ZIP: its name inside the archive, and its bytes, read only when the writer reaches it. */
export interface ZipEntry {
  readonly name: string;
  open(): Promise<Readable | Buffer | null>;
}

/**
 * Writes a ZIP to `out` as its entries arrive, one at a time, so the first bytes leave at once and
 * memory does not grow with the number or size of the files. An entry whose open() answers null is
 * left out.
 */
export interface ZipWriter {
  write(entries: AsyncIterable<ZipEntry>, out: Writable): Promise<void>;
}

/** Joins PDFs into one, in order, with one outline (bookmark) entry per part, titled, at its first page. */
export interface PdfMerger {
  merge(parts: AsyncIterable<{ readonly title: string; readonly content: Buffer }>): Promise<Buffer>;
}
