import type { FontFormat } from '../../domain/accounts/asset-events.js';

/** The first four bytes of each accepted format; anything else (a collection, a PostScript font, not a font) is refused. */
const SIGNATURES: readonly [string, FontFormat][] = [
  ['00010000', 'ttf'],
  ['74727565', 'ttf'], // 'true': Apple's TrueType
  ['4f54544f', 'otf'], // 'OTTO'
  ['774f4646', 'woff'], // 'wOFF'
  ['774f4632', 'woff2'], // 'wOF2'
];

/** The font format the bytes begin with; null for anything the service does not accept. */
export const fontFormatOf = (content: Buffer): FontFormat | null => {
  const head = content.subarray(0, 4).toString('hex');
  return SIGNATURES.find(([signature]) => signature === head)?.[1] ?? null;
};
