import * as fontkit from 'fontkit';
import type { FontFacts, FontInspector } from '../../application/ports/asset-inspection.js';
import type { FontFormat } from '../../domain/accounts/asset-events.js';
import { categoryOf } from './font-catalog.js';
import { assertPlausibleDeclaredSizes } from './font-declared-sizes.js';
import { fontFormatOf } from './font-format.js';
import { refuseFont as refuse } from './font-refusal.js';
import { unwrapWoff } from './woff-unwrapping.js';

/** Google Fonts' subsets by a few characters each must have; a font covering all of them is said to cover the subset. */
const SUBSET_PROBES: readonly [string, string][] = [
  ['latin', 'AZaz09'],
  ['latin-ext', 'ĀŁŚŻ'],
  ['cyrillic', 'АЯая'],
  ['greek', 'ΑΩαω'],
  ['vietnamese', 'ơưạ'],
  ['arabic', 'ابجد'],
  ['hebrew', 'אבגד'],
  ['thai', 'กขคง'],
  ['devanagari', 'कखगघ'],
  ['bengali', 'কখগঘ'],
  ['tamil', 'கஙசஞ'],
  ['japanese', 'あいカキ日本'],
  ['korean', '한국어'],
  ['chinese-simplified', '中国语说'],
  ['emoji', '😀🚀'],
];

/** Glyph outlines decoded to prove the glyph data is whole: a truncated or forged file fails here, not in a render. */
const GLYPHS_CHECKED = 64;

/** Table records must lie inside the file (fontkit reads them lazily and would fail only later). */
const assertTablesInside = (font: fontkit.Font, size: number, format: FontFormat) => {
  const tables = Object.values((font as unknown as { directory: { tables: Record<string, { offset: number; length?: number }> } }).directory?.tables ?? {});
  if (format === 'woff2') return; // One compressed stream, checked by decoding it below.
  if (tables.length === 0) throw refuse('it has no tables');
  for (const table of tables) {
    if (table.offset + (table.length ?? 0) > size) throw refuse('a table runs past the end of the file (truncated?)');
  }
};

const nameOf = (font: fontkit.Font): string => {
  const records = (font as unknown as { name?: { records?: Record<string, Record<string, string> | undefined> } }).name?.records ?? {};
  const family = records.preferredFamily ?? records.fontFamily;
  return (family?.en ?? Object.values(family ?? {})[0] ?? font.familyName ?? '').trim();
};

const isItalic = (font: fontkit.Font): boolean => {
  const selection = (font['OS/2'] as { fsSelection?: { italic?: boolean; oblique?: boolean } } | undefined)?.fsSelection;
  return Boolean(selection?.italic || selection?.oblique) || font.italicAngle !== 0 || /italic|oblique/i.test(font.subfamilyName ?? '');
};

const weightOf = (font: fontkit.Font): number => {
  const weight = (font['OS/2'] as { usWeightClass?: number } | undefined)?.usWeightClass ?? 400;
  return Math.min(1000, Math.max(1, Math.round(weight)));
};

/** Decodes the outlines of glyphs spread over the whole font, and lays out text in it. */
const exercise = (font: fontkit.Font) => {
  const count = font.numGlyphs;
  if (!Number.isInteger(count) || count <= 1) throw refuse('it has no glyphs');
  if (font.characterSet.length === 0) throw refuse('it maps no characters to glyphs');
  const step = Math.max(1, Math.floor(count / GLYPHS_CHECKED));
  for (let id = 0; id < count; id += step) void font.getGlyph(id).path;
  void font.getGlyph(count - 1).path;
  font.layout(String.fromCodePoint(...font.characterSet.slice(0, 32)));
};

/** Fonts parsed whole by fontkit before anything is stored; hostile, truncated and non-font files are a 400. */
export const fontkitInspector: FontInspector = {
  async inspect(content: Buffer): Promise<FontFacts> {
    const format = fontFormatOf(content);
    if (!format) throw refuse('its first bytes are not those of a TTF, OTF, WOFF or WOFF2 font');
    assertPlausibleDeclaredSizes(content, format);
    // A WOFF's tables are inflated by zlib, and fontkit reads the font it wraps.
    const sfnt = format === 'woff' ? unwrapWoff(content) : content;
    let font: fontkit.Font;
    try {
      const parsed = fontkit.create(sfnt);
      if (!('numGlyphs' in parsed)) throw refuse('it is a font collection; upload one font of it');
      font = parsed as fontkit.Font;
      assertTablesInside(font, sfnt.length, format);
      exercise(font);
    } catch (error) {
      if (error instanceof Error && error.name === 'DomainError') throw error;
      throw refuse(`it could not be parsed (${error instanceof Error ? error.message : String(error)})`);
    }
    const family = nameOf(font);
    if (!family) throw refuse('it names no family');
    const characters = new Set(font.characterSet);
    const subsets = SUBSET_PROBES.filter(([, probe]) => [...probe].every((character) => characters.has(character.codePointAt(0) ?? -1))).map(([subset]) => subset);
    const fixedWidth = Boolean((font as unknown as { post?: { isFixedPitch?: number } }).post?.isFixedPitch);
    return { format, family, weight: weightOf(font), style: isItalic(font) ? 'italic' : 'normal', subsets, category: categoryOf(family, [{ fixedWidth }]) };
  },
};
