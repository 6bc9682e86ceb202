import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/shared/errors.js';
import { BARCODE_FORMATS, barcodeProblem, gs1CheckDigit, MATRIX_CAPACITY_BYTES, type BarcodeFormat } from '../../domain/templates/components/barcode-symbols.js';
import type { ComponentDocument } from '../../domain/templates/components/component-document.js';
import { documentProblems } from '../../domain/templates/components/document-problems.js';
import { resolveValues } from '../../domain/templates/components/resolve-values.js';
import { deriveProperties } from '../../domain/templates/components/template-properties.js';
import { barcodeSvg } from '../../infrastructure/canvas/barcode.js';
import { createHtmlCanvasRenderer } from '../../infrastructure/canvas/html-canvas-renderer.js';

const box = { x: 0, y: 0, width: 300, height: 100 };

const thrown = (run: () => unknown): DomainError => {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
};

/** Whether the production drawing (bwip-js with the canvas's options) draws the value. */
const draws = (format: BarcodeFormat, value: string): boolean => {
  try {
    barcodeSvg({ format, value, color: '#000000', background: '#ffffff', showText: true, hidden: false }, { width: 300, height: 100 });
    return true;
  } catch (error) {
    if (error instanceof DomainError) return false;
    throw error;
  }
};

describe('barcodeProblem', () => {
  it('names the rule a value breaks, starting with the format', () => {
    expect(barcodeProblem('ean13', '5901234123457')).toBeNull();
    expect(barcodeProblem('ean13', '590123412345')).toBeNull();
    expect(barcodeProblem('ean13', '5901234123458')).toBe('ean13: bad check digit 8; the check digit of 590123412345 is 7');
    expect(barcodeProblem('ean13', '59012341234a')).toBe("ean13: character 'a' cannot be encoded (EAN-13 holds digits only)");
    expect(barcodeProblem('ean13', '123')).toBe('ean13: must be 12 digits, or 13 with the check digit (it has 3)');
    expect(barcodeProblem('upca', '036000291452')).toBeNull();
    expect(barcodeProblem('upca', '036000291453')).toBe('upca: bad check digit 3; the check digit of 03600029145 is 2');
    expect(barcodeProblem('itf14', '10012345678902')).toBeNull();
    expect(barcodeProblem('itf14', '10012345678903')).toBe('itf14: bad check digit 3; the check digit of 1001234567890 is 2');
    expect(barcodeProblem('code39', 'HELLO-39 $/+%.')).toBeNull();
    expect(barcodeProblem('code39', 'Hello')).toBe("code39: character 'e' cannot be encoded (Code 39 holds digits, capital letters, space and - . $ / + %)");
    expect(barcodeProblem('code128', 'Grüße, 123 ~^\u0000')).toBeNull();
    expect(barcodeProblem('code128', 'price: 5€')).toBe("code128: character '€' cannot be encoded (Code 128 holds ISO 8859-1 (Latin-1) characters only)");
    expect(barcodeProblem('code128', 'x'.repeat(501))).toBe('code128: must be at most 500 characters (it has 501)');
    expect(barcodeProblem('datamatrix', '漢'.repeat(251))).toBe(`datamatrix: holds 753 bytes once encoded (UTF-8); at most ${MATRIX_CAPACITY_BYTES.datamatrix} fit`);
    expect(barcodeProblem('pdf417', 'a\ud800b')).toBe('pdf417: must be well-formed Unicode text (it has a lone surrogate)');
    expect(barcodeProblem('code128', '')).toBe('code128: must not be empty');
  });

  it('computes GS1 check digits', () => {
    expect(gs1CheckDigit('590123412345')).toBe(7);
    expect(gs1CheckDigit('03600029145')).toBe(2);
    expect(gs1CheckDigit('1001234567890')).toBe(2);
    expect(gs1CheckDigit('400638133393')).toBe(1);
  });
});

/*
 * The domain's rules stand in for bwip-js's before anything is charged, so they must agree with
 * it: what the domain accepts, the drawing draws, and for the linear formats it refuses what the
 * drawing refuses on the alphabets that matter.
 */
describe('the rules agree with bwip-js', () => {
  const digits = (maxLength: number, minLength = 0) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength, maxLength });
  const withCheckDigit = (length: number) => digits(length, length).map((value) => value + String(gs1CheckDigit(value)));

  for (const [format, length] of [['ean13', 12], ['upca', 11], ['itf14', 13]] as const) {
    it(`${format}: digit strings of every length, right and wrong check digits`, () => {
      fc.assert(
        fc.property(fc.oneof(digits(length + 3), withCheckDigit(length), fc.string({ maxLength: length + 1 })), (value) => {
          // bwip-js also takes 7 or 8 digits as UPC-A, expanding a UPC-E number; the canvas asks for the UPC-A number itself.
          const upcE = format === 'upca' && /^\d{7,8}$/.test(value);
          expect(barcodeProblem(format, value) === null).toBe(draws(format, value) && !upcE);
        }),
        { numRuns: 300 },
      );
    });
  }

  it('code39: ASCII strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: fc.constantFrom(...'ABCXYZ0189 -.$/+%*ab'), maxLength: 30 }), fc.string({ maxLength: 20 })), (value) => {
        expect(barcodeProblem('code39', value) === null).toBe(draws('code39', value));
      }),
      { numRuns: 300 },
    );
  });

  it('code128: Latin-1 and beyond, up to the length bound', () => {
    const latin1 = fc.integer({ min: 0, max: 0xff }).map((code) => String.fromCharCode(code));
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: latin1, maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 10 })), (value) => {
        expect(barcodeProblem('code128', value) === null).toBe(draws('code128', value));
      }),
      { numRuns: 200 },
    );
    for (const value of ['é'.repeat(500), 'a'.repeat(501)]) expect(barcodeProblem('code128', value) === null).toBe(draws('code128', value));
  }, 30_000);

  it('datamatrix and pdf417: anything within the byte bound draws, however the characters mix', () => {
    const unit = fc.constantFrom('a', 'B', '1', '0', '!', '~', '\u0001', '\u007f', 'é', '漢', '😀', ' ', '\n');
    for (const format of ['datamatrix', 'pdf417'] as const) {
      const bound = MATRIX_CAPACITY_BYTES[format];
      fc.assert(
        fc.property(fc.array(unit, { minLength: 1, maxLength: 12 }), (pattern) => {
          // The pattern repeated to just within the bound: mode changes are what cost an encoder room.
          let value = '';
          for (let index = 0; ; index++) {
            const next = value + pattern[index % pattern.length];
            if (new TextEncoder().encode(next).length > bound) break;
            value = next;
          }
          expect(barcodeProblem(format, value)).toBeNull();
          expect(draws(format, value)).toBe(true);
        }),
        // The first: a mix that bwip-js's Data Matrix encoder fits in 1,362 bytes, not the 1,555 its modes could.
        { numRuns: 60, examples: [[['a', '1', '1', 'é', '0', '1']]] },
      );
    }
  }, 60_000);
});

const barcodeDocument = (props: Record<string, unknown>): ComponentDocument => ({ components: [{ id: 'code', type: 'BARCODE', ...box, ...props }] });

describe('BARCODE components', () => {
  it('lists its properties with their defaults', () => {
    expect(deriveProperties(barcodeDocument({})).map(({ property, type, defaultValue }) => [property, type, defaultValue])).toEqual([
      ['format', 'select', 'code128'],
      ['value', 'text', '0123456789'],
      ['color', 'color', '#000000'],
      ['background', 'color', '#ffffff'],
      ['showText', 'boolean', 'true'],
      ['hidden', 'boolean', 'false'],
    ]);
    expect(BARCODE_FORMATS).toEqual(['code128', 'ean13', 'upca', 'code39', 'itf14', 'datamatrix', 'pdf417']);
  });

  it('refuses a stored value its format cannot hold, naming the component', () => {
    expect(documentProblems(barcodeDocument({ format: 'ean13', value: '5901234123458' }), 'canvas-editor')).toEqual([
      "components[0] (id 'code').value: ean13: bad check digit 8; the check digit of 590123412345 is 7",
    ]);
    expect(documentProblems(barcodeDocument({ format: 'code39', value: 'abc' }), 'canvas-editor')).toEqual([
      "components[0] (id 'code').value: code39: character 'a' cannot be encoded (Code 39 holds digits, capital letters, space and - . $ / + %)",
    ]);
    // The default value (ten digits) is no EAN-13.
    expect(documentProblems(barcodeDocument({ format: 'ean13' }), 'canvas-editor')).toEqual([
      "components[0] (id 'code').value: ean13: must be 12 digits, or 13 with the check digit (it has 10)",
    ]);
    // A value that fails its own check is reported once, by that check.
    expect(documentProblems(barcodeDocument({ format: 'qr', value: '' }), 'canvas-editor')).toEqual([
      "components[0] (id 'code').format: must be one of code128, ean13, upca, code39, itf14, datamatrix, pdf417",
      "components[0] (id 'code').value: must be text of 1 to 750 characters",
    ]);
  });

  it('refuses render data that makes value and format disagree, naming the key the data gave', () => {
    const stored = barcodeDocument({ format: 'ean13', value: '5901234123457' });
    expect(resolveValues(stored, { 'code.value': '400638133393' })['code.value']).toBe('400638133393');
    expect(thrown(() => resolveValues(stored, { 'code.value': '4006381333932' })).details).toEqual([
      'data.code.value: ean13: bad check digit 2; the check digit of 400638133393 is 1',
    ]);
    expect(thrown(() => resolveValues(stored, { 'code.format': 'upca' })).details).toEqual([
      'data.code.format: upca: must be 11 digits, or 12 with the check digit (it has 13)',
    ]);
    expect(thrown(() => resolveValues(stored, { 'code.format': 'code39', 'code.value': 'lower' })).details).toEqual([
      "data.code.value: code39: character 'l' cannot be encoded (Code 39 holds digits, capital letters, space and - . $ / + %)",
    ]);
    expect(resolveValues(stored, { 'code.format': 'code128', 'code.value': 'any text' })).toMatchObject({ 'code.format': 'code128', 'code.value': 'any text' });
  });

  it('draws with any CSS colour, on its background, text when asked', () => {
    const svg = barcodeSvg({ format: 'code128', value: 'ABC', color: 'rgb(10, 20, 30)', background: 'hsl(60, 100%, 90%)', showText: true, hidden: false }, { width: 300, height: 100 });
    expect(svg).toContain('background:hsl(60, 100%, 90%)');
    expect(svg).toContain('color:rgb(10, 20, 30)');
    expect(svg).toContain('currentColor');
    expect(svg).not.toMatch(/#000000/);
    const withoutText = barcodeSvg({ format: 'code128', value: 'ABC', color: '#000', background: '#fff', showText: false, hidden: false }, { width: 300, height: 100 });
    expect(withoutText.length).toBeLessThan(svg.length);
  });
});

describe('hidden components', () => {
  const renderer = createHtmlCanvasRenderer();
  const page = { width: 300, height: 100 };
  const document: ComponentDocument = {
    components: [
      { id: 'logo', type: 'TEXT', ...box, text: 'Secret words' },
      { id: 'code', type: 'BARCODE', ...box, value: 'ABC' },
      { id: 'clip', type: 'VIDEO', ...box, src: 'https://example.com/a.webm' },
      { id: 'photo', type: 'IMAGE', ...box, src: 'https://example.com/a.png', hideOnError: true },
    ],
  };

  it('takes hidden from render data, in text form too', () => {
    expect(deriveProperties(document).filter((property) => property.property === 'hidden').map((property) => property.key)).toEqual([
      'logo.hidden',
      'code.hidden',
      'clip.hidden',
      'photo.hidden',
    ]);
    expect(resolveValues(document, { 'logo.hidden': 'true' })['logo.hidden']).toBe(true);
    expect(thrown(() => resolveValues(document, { 'logo.hidden': 'yes' })).details).toEqual(['data.logo.hidden: must be true or false']);
  });

  it('leaves a hidden component out of the page, the others where they were', async () => {
    const shown = await renderer.toHtml(document, resolveValues(document, {}), page);
    expect(shown).toContain('Secret words');
    expect(shown).toContain('data-component="code"');
    expect(shown).toContain('data-cv-video=');
    const hidden = await renderer.toHtml(document, resolveValues(document, { 'logo.hidden': true, 'code.hidden': true, 'clip.hidden': true }), page);
    expect(hidden).not.toContain('Secret words');
    expect(hidden).not.toContain('data-component="logo"');
    expect(hidden).not.toContain('data-component="code"');
    expect(hidden).not.toContain('data-cv-video=');
    expect(hidden).toContain('id="cv-3" data-component="photo"');
  });

  it('marks images that hide when they fail to load, and draws no element for an empty source', async () => {
    const html = await renderer.toHtml(document, resolveValues(document, {}), page);
    expect(html).toMatch(/<img src="https:\/\/example\.com\/a\.png" alt="" onerror="this\.remove\(\)"/);
    const plain = await renderer.toHtml(document, resolveValues(document, { 'photo.hideOnError': false }), page);
    expect(plain).not.toContain('onerror');
    const empty = await renderer.toHtml(document, resolveValues(document, { 'photo.src': '' }), page);
    expect(empty).not.toContain('<img');
  });
});
