import { brotliCompressSync, constants, deflateSync } from 'node:zlib';

/*
 * WOFF and WOFF2 files made from a TTF or OTF, as font tools make them (WOFF2's glyf and loca with
 * the null transform, which the format allows), so tests need no converter installed; and their
 * hostile counterparts, whose headers declare tables far larger than the file.
 */

interface SfntTable {
  readonly tag: string;
  readonly data: Buffer;
}

const sfntTables = (sfnt: Buffer): { flavor: number; tables: SfntTable[] } => {
  const count = sfnt.readUInt16BE(4);
  const tables = Array.from({ length: count }, (_, index) => {
    const record = 12 + index * 16;
    const offset = sfnt.readUInt32BE(record + 8);
    return { tag: sfnt.toString('latin1', record, record + 4), data: sfnt.subarray(offset, offset + sfnt.readUInt32BE(record + 12)) };
  });
  return { flavor: sfnt.readUInt32BE(0), tables };
};

const padded = (length: number) => (length + 3) & ~3;

const sfntSize = (tables: readonly SfntTable[]) => 12 + 16 * tables.length + tables.reduce((sum, table) => sum + padded(table.data.length), 0);

/** WOFF 1: each table deflated on its own where that makes it smaller. */
export const toWoff = (sfnt: Buffer): Buffer => {
  const { flavor, tables } = sfntTables(sfnt);
  const directory = Buffer.alloc(tables.length * 20);
  const blocks: Buffer[] = [];
  let offset = 44 + directory.length;
  tables.forEach(({ tag, data }, index) => {
    const deflated = deflateSync(data, { level: 9 });
    const stored = deflated.length < data.length ? deflated : data;
    const entry = index * 20;
    directory.write(tag, entry, 'latin1');
    directory.writeUInt32BE(offset, entry + 4);
    directory.writeUInt32BE(stored.length, entry + 8);
    directory.writeUInt32BE(data.length, entry + 12);
    blocks.push(stored, Buffer.alloc(padded(stored.length) - stored.length));
    offset += padded(stored.length);
  });
  const header = Buffer.alloc(44);
  header.write('wOFF', 0, 'latin1');
  header.writeUInt32BE(flavor, 4);
  header.writeUInt32BE(offset, 8);
  header.writeUInt16BE(tables.length, 12);
  header.writeUInt32BE(sfntSize(tables), 16);
  header.writeUInt16BE(1, 20);
  return Buffer.concat([header, directory, ...blocks]);
};

const WOFF2_KNOWN_TAGS = [
  'cmap', 'head', 'hhea', 'hmtx', 'maxp', 'name', 'OS/2', 'post', 'cvt ', 'fpgm', 'glyf', 'loca', 'prep', 'CFF ', 'VORG', 'EBDT',
  'EBLC', 'gasp', 'hdmx', 'kern', 'LTSH', 'PCLT', 'VDMX', 'vhea', 'vmtx', 'BASE', 'GDEF', 'GPOS', 'GSUB', 'EBSC', 'JSTF', 'MATH',
  'CBDT', 'CBLC', 'COLR', 'CPAL', 'SVG ', 'sbix', 'acnt', 'avar', 'bdat', 'bloc', 'bsln', 'cvar', 'fdsc', 'feat', 'fmtx', 'fvar',
  'gvar', 'hsty', 'just', 'lcar', 'mort', 'morx', 'opbd', 'prop', 'trak', 'Zapf', 'Silf', 'Glat', 'Gloc', 'Feat', 'Sill',
];
const NULL_TRANSFORM = 3 << 6;

export const base128 = (value: number): Buffer => {
  const bytes = [value & 0x7f];
  for (let rest = Math.floor(value / 128); rest > 0; rest = Math.floor(rest / 128)) bytes.unshift((rest & 0x7f) | 0x80);
  return Buffer.from(bytes);
};

const woff2Entry = (tag: string, length: number): Buffer => {
  const known = WOFF2_KNOWN_TAGS.indexOf(tag);
  const transform = tag === 'glyf' || tag === 'loca' ? NULL_TRANSFORM : 0;
  const flags = Buffer.from([(known === -1 ? 0x3f : known) | transform]);
  return Buffer.concat([flags, known === -1 ? Buffer.from(tag, 'latin1') : Buffer.alloc(0), base128(length)]);
};

const woff2Header = (flavor: number, fileLength: number, numTables: number, totalSfntSize: number, totalCompressedSize: number) => {
  const header = Buffer.alloc(48);
  header.write('wOF2', 0, 'latin1');
  header.writeUInt32BE(flavor, 4);
  header.writeUInt32BE(fileLength, 8);
  header.writeUInt16BE(numTables, 12);
  header.writeUInt32BE(totalSfntSize, 16);
  header.writeUInt32BE(totalCompressedSize, 20);
  header.writeUInt16BE(1, 24);
  return header;
};

/** WOFF2: every table, untransformed, in one brotli stream. */
export const toWoff2 = (sfnt: Buffer): Buffer => {
  const { flavor, tables } = sfntTables(sfnt);
  const directory = Buffer.concat(tables.map(({ tag, data }) => woff2Entry(tag, data.length)));
  const stream = brotliCompressSync(Buffer.concat(tables.map(({ data }) => data)), { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_FONT } });
  const length = padded(48 + directory.length + stream.length);
  const body = Buffer.concat([directory, stream]);
  return Buffer.concat([woff2Header(flavor, length, tables.length, sfntSize(tables), stream.length), body, Buffer.alloc(length - 48 - body.length)]);
};

const GIB = 1024 * 1024 * 1024;

/** A WOFF2 of a couple of kilobytes whose one table inflates (brotli of zeros) to a full gibibyte, as it declares. */
export const woff2Bomb = (): Buffer => {
  const stream = brotliCompressSync(Buffer.alloc(1024 * 1024));
  const directory = woff2Entry('glyf', GIB);
  const length = padded(48 + directory.length + stream.length);
  const body = Buffer.concat([directory, stream]);
  return Buffer.concat([woff2Header(0x00010000, length, 1, GIB + 12 + 16, stream.length), body, Buffer.alloc(length - 48 - body.length)]);
};

/** A WOFF of a couple of kilobytes whose one table, deflated zeros, declares a gibibyte once inflated. */
export const woffBomb = (): Buffer => {
  const deflated = deflateSync(Buffer.alloc(2 * 1024 * 1024), { level: 9 });
  const header = Buffer.alloc(44);
  header.write('wOFF', 0, 'latin1');
  header.writeUInt32BE(0x00010000, 4);
  header.writeUInt32BE(44 + 20 + padded(deflated.length), 8);
  header.writeUInt16BE(1, 12);
  header.writeUInt32BE(GIB + 12 + 16, 16);
  header.writeUInt16BE(1, 20);
  const entry = Buffer.alloc(20);
  entry.write('glyf', 0, 'latin1');
  entry.writeUInt32BE(64, 4);
  entry.writeUInt32BE(deflated.length, 8);
  entry.writeUInt32BE(GIB, 12);
  return Buffer.concat([header, entry, deflated, Buffer.alloc(padded(deflated.length) - deflated.length)]);
};
