import type { FontFormat } from '../../domain/accounts/asset-events.js';
import { refuseFont } from './font-refusal.js';

/*
 * A WOFF or WOFF2 file says in its header how large its tables are once inflated, and a parser
 * allocates that much before it can find out the file lies: a file of a few kilobytes declaring a
 * huge table costs that much memory and a long inflate. The declared sizes are read here, without
 * inflating anything, and refused when no real font would declare them.
 */

/** Larger than any single font face in use (a CJK face with every glyph is some 20 MB; Noto Color Emoji 10 MB). */
export const MAX_DECLARED_FONT_BYTES = 64 * 1024 * 1024;
/**
 * Inflated size over file size. WOFF2 faces found in the wild inflate some 2.5 times (at most 4.9 of
 * 38 looked at); this machine's 354 TTF and OTF faces, converted, 2.3 times (at most 4.5), and as
 * WOFF 2 times (at most 3.4): eight times the worst of them, while a small bomb gains next to nothing.
 */
export const MAX_DECLARED_FONT_RATIO = 40;

const WOFF_HEADER_BYTES = 44;
const WOFF_TABLE_ENTRY_BYTES = 20;
const WOFF2_HEADER_BYTES = 48;
/** WOFF2's table tags by index, as far as this check needs them: glyf and loca transform the other way round. */
const WOFF2_GLYF = 10;
const WOFF2_LOCA = 11;
const WOFF2_CUSTOM_TAG = 0x3f;

const truncated = () => refuseFont('its header or table directory runs past the end of the file (truncated?)');

/** WOFF: the sfnt size the header gives and the inflated length of every table. */
const woffDeclaredBytes = (content: Buffer): number => {
  if (content.length < WOFF_HEADER_BYTES) throw truncated();
  const numTables = content.readUInt16BE(12);
  if (WOFF_HEADER_BYTES + numTables * WOFF_TABLE_ENTRY_BYTES > content.length) throw truncated();
  let tables = 0;
  for (let index = 0; index < numTables; index++) tables += content.readUInt32BE(WOFF_HEADER_BYTES + index * WOFF_TABLE_ENTRY_BYTES + 12);
  return Math.max(content.readUInt32BE(16), tables);
};

/** A cursor over WOFF2's variable-length numbers (UIntBase128: seven bits a byte, at most five bytes). */
const base128Reader = (content: Buffer, start: number) => {
  let at = start;
  return {
    byte(): number {
      if (at >= content.length) throw truncated();
      return content[at++]!;
    },
    skip(bytes: number) {
      at += bytes;
      if (at > content.length) throw truncated();
    },
    number(): number {
      let value = 0;
      for (let index = 0; index < 5; index++) {
        const byte = this.byte();
        if (index === 0 && byte === 0x80) throw refuseFont('its table directory is malformed (a number with a leading zero)');
        value = value * 128 + (byte & 0x7f);
        if (value > 0xffffffff) throw refuseFont('its table directory is malformed (a number past 32 bits)');
        if ((byte & 0x80) === 0) return value;
      }
      throw refuseFont('its table directory is malformed (a number longer than five bytes)');
    },
  };
};

/** WOFF2: the sfnt size the header gives, and what the one compressed stream inflates to (each table, or its transform). */
const woff2DeclaredBytes = (content: Buffer): number => {
  if (content.length < WOFF2_HEADER_BYTES) throw truncated();
  const numTables = content.readUInt16BE(12);
  if (content.readUInt32BE(20) > content.length) throw refuseFont('its compressed data is larger than the file');
  const reader = base128Reader(content, WOFF2_HEADER_BYTES);
  let stream = 0;
  for (let index = 0; index < numTables; index++) {
    const flags = reader.byte();
    const tag = flags & 0x3f;
    if (tag === WOFF2_CUSTOM_TAG) reader.skip(4);
    const version = flags >>> 6;
    const originalLength = reader.number();
    const transformed = tag === WOFF2_GLYF || tag === WOFF2_LOCA ? version === 0 : version !== 0;
    stream += transformed ? reader.number() : originalLength;
  }
  return Math.max(content.readUInt32BE(16), stream);
};

const DECLARED_BYTES: Partial<Record<FontFormat, (content: Buffer) => number>> = { woff: woffDeclaredBytes, woff2: woff2DeclaredBytes };

/**
 * Refuses a WOFF or WOFF2 font whose header declares more inflated bytes than any real font, or far
 * more than its size explains; other formats are stored uncompressed and pass.
 */
export const assertPlausibleDeclaredSizes = (content: Buffer, format: FontFormat): void => {
  const declaredBytesOf = DECLARED_BYTES[format];
  if (!declaredBytesOf) return;
  const declared = declaredBytesOf(content);
  if (declared > MAX_DECLARED_FONT_BYTES) throw refuseFont(`it declares ${declared} bytes of tables, more than the ${MAX_DECLARED_FONT_BYTES} any font needs`);
  if (declared > content.length * MAX_DECLARED_FONT_RATIO) {
    throw refuseFont(`it declares ${declared} bytes of tables, more than ${MAX_DECLARED_FONT_RATIO} times its own size (a decompression bomb?)`);
  }
};
