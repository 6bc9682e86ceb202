import { inflateSync } from 'node:zlib';
import { refuseFont } from './font-refusal.js';

/*
 * fontkit inflates WOFF tables in JavaScript, much slower than zlib: a large WOFF face could take it
 * past what a parse may take. Each table is inflated here by zlib instead, never past the length
 * the directory gives it, and fontkit reads the TTF or OTF the WOFF wraps.
 */

const HEADER_BYTES = 44;
const ENTRY_BYTES = 20;
const SFNT_HEADER_BYTES = 12;
const SFNT_RECORD_BYTES = 16;

interface WoffTable {
  readonly tag: Buffer;
  readonly checksum: number;
  readonly data: Buffer;
}

const padded = (length: number) => (length + 3) & ~3;

const tableAt = (content: Buffer, index: number): WoffTable => {
  const entry = HEADER_BYTES + index * ENTRY_BYTES;
  const offset = content.readUInt32BE(entry + 4);
  const compressedLength = content.readUInt32BE(entry + 8);
  const length = content.readUInt32BE(entry + 12);
  if (offset + compressedLength > content.length) throw refuseFont('a table runs past the end of the file (truncated?)');
  if (compressedLength > length) throw refuseFont('a table is larger compressed than inflated');
  const stored = content.subarray(offset, offset + compressedLength);
  let data: Buffer;
  try {
    data = compressedLength === length ? stored : inflateSync(stored, { maxOutputLength: length });
  } catch (error) {
    throw refuseFont(`a table could not be inflated (${error instanceof Error ? error.message : String(error)})`);
  }
  if (data.length !== length) throw refuseFont('a table inflates to another length than its directory gives');
  return { tag: content.subarray(entry, entry + 4), checksum: content.readUInt32BE(entry + 16), data };
};

/** The sfnt header's binary-search fields, from the number of tables. */
const searchFields = (numTables: number) => {
  const entrySelector = Math.floor(Math.log2(Math.max(1, numTables)));
  const searchRange = 2 ** entrySelector * SFNT_RECORD_BYTES;
  return { searchRange, entrySelector, rangeShift: numTables * SFNT_RECORD_BYTES - searchRange };
};

/**
 * The TTF or OTF a WOFF file wraps. The header's declared sizes must have been checked first
 * (font-declared-sizes.ts): they bound what is inflated here.
 */
export const unwrapWoff = (content: Buffer): Buffer => {
  const numTables = content.readUInt16BE(12);
  if (HEADER_BYTES + numTables * ENTRY_BYTES > content.length) throw refuseFont('its table directory runs past the end of the file (truncated?)');
  const tables = Array.from({ length: numTables }, (_, index) => tableAt(content, index));
  const header = Buffer.alloc(SFNT_HEADER_BYTES + numTables * SFNT_RECORD_BYTES);
  const { searchRange, entrySelector, rangeShift } = searchFields(numTables);
  header.writeUInt32BE(content.readUInt32BE(4), 0);
  header.writeUInt16BE(numTables, 4);
  header.writeUInt16BE(searchRange, 6);
  header.writeUInt16BE(entrySelector, 8);
  header.writeUInt16BE(rangeShift, 10);
  let offset = header.length;
  const blocks: Buffer[] = [header];
  tables.forEach(({ tag, checksum, data }, index) => {
    const record = SFNT_HEADER_BYTES + index * SFNT_RECORD_BYTES;
    tag.copy(header, record);
    header.writeUInt32BE(checksum, record + 4);
    header.writeUInt32BE(offset, record + 8);
    header.writeUInt32BE(data.length, record + 12);
    blocks.push(data, Buffer.alloc(padded(data.length) - data.length));
    offset += padded(data.length);
  });
  return Buffer.concat(blocks);
};
