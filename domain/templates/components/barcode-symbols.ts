/**
 * What each barcode symbology can hold. The drawing library (bwip-js, in infrastructure) is the
 * final judge; these rules are the ones it applies to the options the canvas draws with, written
 * out so that a template save and render data meet them in the domain, before anything is charged.
 * test/unit/barcode-symbols.unit.test.ts holds the two to agreement: a value passing here encodes.
 */

export const BARCODE_FORMATS = ['code128', 'ean13', 'upca', 'code39', 'itf14', 'datamatrix', 'pdf417'] as const;
export type BarcodeFormat = (typeof BARCODE_FORMATS)[number];

/** Formats drawn as bars in one row, with the human-readable text under them when asked. */
export const LINEAR_FORMATS: ReadonlySet<BarcodeFormat> = new Set(['code128', 'ean13', 'upca', 'code39', 'itf14']);

/** The library refuses longer input for Code 128 and Code 39. */
const MAX_LINEAR_CHARACTERS = 500;

/**
 * Bytes (UTF-8) that fit a symbol whatever the characters. The true capacity depends on how the
 * library's encoder switches modes for the content (Data Matrix 144x144 holds 3,116 digits but not
 * always 1,400 bytes of mixed text; PDF417 2,700 digits but not always 700 bytes), so the bound is
 * one that no mix can exceed: at most two codewords a byte, the cost of a byte shifted into a mode
 * that does not hold it, within the largest symbol's data codewords (1,558; PDF417 at its automatic
 * error correction, 863). A rule a caller can read, where the true one would need the encoder.
 */
export const MATRIX_CAPACITY_BYTES = { datamatrix: 750, pdf417: 400 } as const;

/** The longest value any format takes, for the property's own check. */
export const MAX_BARCODE_VALUE_LENGTH = MATRIX_CAPACITY_BYTES.datamatrix;

const CODE39_CHARACTERS = /^[0-9A-Z \-.$/+%]$/;

/** GS1 mod-10: weights 3 and 1 from the right of the digits that precede the check digit. */
export const gs1CheckDigit = (digits: string): number => {
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    const digit = digits.charCodeAt(digits.length - 1 - index) - 48;
    sum += index % 2 === 0 ? 3 * digit : digit;
  }
  return (10 - (sum % 10)) % 10;
};

const named = (character: string): string => {
  const code = character.codePointAt(0) ?? 0;
  return code >= 0x20 && code !== 0x7f && !(code >= 0x80 && code < 0xa0) ? `'${character}'` : `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
};

/** Digits only, `length` of them without the check digit or one more with it, the check digit right. */
const gs1Problem = (format: BarcodeFormat, name: string, value: string, length: number): string | null => {
  const bad = [...value].find((character) => character < '0' || character > '9');
  if (bad !== undefined) return `${format}: character ${named(bad)} cannot be encoded (${name} holds digits only)`;
  if (value.length !== length && value.length !== length + 1) {
    return `${format}: must be ${length} digits, or ${length + 1} with the check digit (it has ${value.length})`;
  }
  if (value.length === length) return null;
  const expected = gs1CheckDigit(value.slice(0, length));
  const given = value.charCodeAt(length) - 48;
  return given === expected ? null : `${format}: bad check digit ${given}; the check digit of ${value.slice(0, length)} is ${expected}`;
};

/**
 * Why `value` cannot be drawn as `format`, or null when it can. Each answer starts with the format
 * and names the rule: the character that does not fit, the length, the check digit.
 */
export const barcodeProblem = (format: BarcodeFormat, value: string): string | null => {
  if (value === '') return `${format}: must not be empty`;
  switch (format) {
    case 'code128': {
      // Code 128 holds ISO 8859-1: ASCII in its code sets, the upper half through FNC4.
      const bad = [...value].find((character) => (character.codePointAt(0) ?? 0) > 0xff);
      if (bad !== undefined) return `code128: character ${named(bad)} cannot be encoded (Code 128 holds ISO 8859-1 (Latin-1) characters only)`;
      return value.length > MAX_LINEAR_CHARACTERS ? `code128: must be at most ${MAX_LINEAR_CHARACTERS} characters (it has ${value.length})` : null;
    }
    case 'code39': {
      const bad = [...value].find((character) => !CODE39_CHARACTERS.test(character));
      if (bad !== undefined) return `code39: character ${named(bad)} cannot be encoded (Code 39 holds digits, capital letters, space and - . $ / + %)`;
      return value.length > MAX_LINEAR_CHARACTERS ? `code39: must be at most ${MAX_LINEAR_CHARACTERS} characters (it has ${value.length})` : null;
    }
    case 'ean13':
      return gs1Problem(format, 'EAN-13', value, 12);
    case 'upca':
      return gs1Problem(format, 'UPC-A', value, 11);
    case 'itf14':
      return gs1Problem(format, 'ITF-14', value, 13);
    case 'datamatrix':
    case 'pdf417': {
      if (!value.isWellFormed()) return `${format}: must be well-formed Unicode text (it has a lone surrogate)`;
      const bytes = new TextEncoder().encode(value).length;
      const capacity = MATRIX_CAPACITY_BYTES[format];
      return bytes > capacity ? `${format}: holds ${bytes} bytes once encoded (UTF-8); at most ${capacity} fit` : null;
    }
  }
};
