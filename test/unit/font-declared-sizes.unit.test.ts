import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { assertPlausibleDeclaredSizes, MAX_DECLARED_FONT_RATIO } from '../../infrastructure/fonts/font-declared-sizes.js';
import { fontkitInspector } from '../../infrastructure/fonts/font-inspector.js';
import { unwrapWoff } from '../../infrastructure/fonts/woff-unwrapping.js';
import { DomainError } from '../../domain/shared/errors.js';
import { base128, toWoff, toWoff2, woff2Bomb, woffBomb } from '../support/font-containers.js';
import { expectDomainError } from '../support/expect-domain-error.js';

/*
 * WOFF and WOFF2 headers say how large their tables are once inflated; a font that declares far
 * more than it can hold is refused from those few bytes, before anything is inflated. A WOFF's
 * tables are then inflated by zlib, each to exactly the length its directory gives.
 */

const MONO = readFileSync('/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf');
const LATO = readFileSync('/usr/share/fonts/truetype/lato/Lato-Black.ttf');
const MIB = 1024 * 1024;

const refusal = (act: () => void): DomainError => {
  try {
    act();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  return expect.fail('expected a refusal');
};

describe('declared font sizes', () => {
  it.each([
    ['WOFF2', woff2Bomb, 'woff2'],
    ['WOFF', woffBomb, 'woff'],
  ] as const)('refuses a %s of a few kilobytes that declares a 1 GiB table, without inflating it', async (_name, bomb, format) => {
    const content = bomb();
    expect(content.length).toBeLessThan(4096);
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    const error = await expectDomainError(fontkitInspector.inspect(content), 'validation');
    expect(error.message).toMatch(/declares 1073741852 bytes of tables/);
    expect(performance.now() - started).toBeLessThan(500);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 * MIB);
    expect(refusal(() => assertPlausibleDeclaredSizes(content, format)).code).toBe('validation');
  });

  it(`refuses a small file that declares more than ${MAX_DECLARED_FONT_RATIO} times its size, though under the absolute bound`, () => {
    const woff2 = toWoff2(MONO);
    const claimed = Buffer.from(woff2);
    claimed.writeUInt32BE(woff2.length * (MAX_DECLARED_FONT_RATIO + 1), 16);
    expect(refusal(() => assertPlausibleDeclaredSizes(claimed, 'woff2')).message).toMatch(/more than 40 times its own size/);
  });

  it('counts what a WOFF2 stream inflates to from its table directory, not only the header total', () => {
    const header = Buffer.alloc(48);
    header.write('wOF2', 0, 'latin1');
    header.writeUInt16BE(2, 12);
    header.writeUInt32BE(1000, 16);
    // hmtx at 40 MiB, then a transformed glyf whose transform is 40 MiB more.
    const directory = Buffer.concat([Buffer.from([3]), base128(40 * MIB), Buffer.from([10]), base128(1000), base128(40 * MIB)]);
    const error = refusal(() => assertPlausibleDeclaredSizes(Buffer.concat([header, directory, Buffer.alloc(2048)]), 'woff2'));
    expect(error.message).toMatch(/declares 83886080 bytes/);
  });

  it('refuses a WOFF2 directory with a malformed number and a WOFF directory past the end of the file', () => {
    const header = Buffer.alloc(48);
    header.write('wOF2', 0, 'latin1');
    header.writeUInt16BE(1, 12);
    expect(refusal(() => assertPlausibleDeclaredSizes(Buffer.concat([header, Buffer.from([1, 0x80, 0x01])]), 'woff2')).message).toMatch(/leading zero/);
    const woff = toWoff(MONO).subarray(0, 60);
    expect(refusal(() => assertPlausibleDeclaredSizes(woff, 'woff')).message).toMatch(/truncated/);
  });

  it.each([
    ['DejaVu Sans Mono', MONO],
    ['Lato', LATO],
  ])('accepts %s as WOFF and WOFF2 and parses it whole', async (family, ttf) => {
    for (const [format, content] of [
      ['woff', toWoff(ttf)],
      ['woff2', toWoff2(ttf)],
    ] as const) {
      expect(() => assertPlausibleDeclaredSizes(content, format)).not.toThrow();
      const facts = await fontkitInspector.inspect(content);
      expect(facts).toMatchObject({ format, family });
    }
  });
});

describe('WOFF tables inflated by zlib', () => {
  /** A WOFF of the font whose first deflated table's directory entry says `origLength` + `by`. */
  const misdeclared = (by: number) => {
    const woff = Buffer.from(toWoff(MONO));
    const entry = Array.from({ length: woff.readUInt16BE(12) }, (_, index) => 44 + index * 20).find((at) => woff.readUInt32BE(at + 8) < woff.readUInt32BE(at + 12))!;
    woff.writeUInt32BE(woff.readUInt32BE(entry + 12) + by, entry + 12);
    return woff;
  };

  it('gives back the TTF the WOFF wraps, table for table', () => {
    const sfnt = unwrapWoff(toWoff(MONO));
    const tables = (font: Buffer) =>
      Array.from({ length: font.readUInt16BE(4) }, (_, index) => {
        const record = 12 + index * 16;
        const offset = font.readUInt32BE(record + 8);
        return [font.toString('latin1', record, record + 4), font.subarray(offset, offset + font.readUInt32BE(record + 12)).toString('hex')];
      });
    expect(sfnt.readUInt32BE(0)).toBe(MONO.readUInt32BE(0));
    expect(tables(sfnt)).toEqual(tables(MONO));
  });

  it('refuses a table that inflates to less or more than its directory says', () => {
    expect(refusal(() => unwrapWoff(misdeclared(4))).message).toMatch(/inflates to another length/);
    expect(refusal(() => unwrapWoff(misdeclared(-4))).message).toMatch(/could not be inflated/);
  });

  it('refuses a table past the end of the file', () => {
    const woff = toWoff(MONO);
    expect(refusal(() => unwrapWoff(woff.subarray(0, woff.length - 4096))).message).toMatch(/runs past the end of the file/);
  });
});
