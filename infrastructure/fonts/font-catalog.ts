import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { variantName } from '../../application/fonts/font-dto.js';
import type { FontCatalog, FontDto } from '../../application/ports/font-catalog.js';

const run = promisify(execFile);

/** One line per font face: the fields the catalog needs, tab-separated. */
const FC_FORMAT = '%{family[0]}\t%{style[0]}\t%{weight}\t%{slant}\t%{spacing}\t%{file}\n';

/** fontconfig's `spacing` values for fixed-width faces (FC_MONO, FC_CHARCELL). */
const FIXED_SPACINGS = new Set(['100', '110']);

/** Families installed here that Google Fonts also serves; everything else is not from Google. */
const GOOGLE_FAMILIES = [
  'Roboto', 'Open Sans', 'Lato', 'Noto', 'Source Sans', 'Source Serif', 'Source Code Pro', 'Montserrat', 'Inter',
  'Poppins', 'Oswald', 'Raleway', 'Merriweather', 'Playfair Display', 'Ubuntu', 'PT Sans', 'PT Serif', 'Nunito',
  'Fira Sans', 'Fira Code', 'Fira Mono', 'Cantarell', 'Work Sans', 'Rubik', 'Karla', 'Inconsolata', 'Lora',
  'EB Garamond', 'Arimo', 'Tinos', 'Cousine',
];

/**
 * CSS weights for style names, most specific first ("ExtraBold" before "Bold"). Names say what the
 * designer meant more reliably than the numeric weight, which fonts set inconsistently.
 */
const STYLE_WEIGHTS: readonly [RegExp, number][] = [
  [/(extra|ultra)black/, 900],
  [/(extra|ultra)bold/, 800],
  [/(semi|demi)bold/, 600],
  [/(extra|ultra)light/, 200],
  [/thin|hairline/, 100],
  [/light/, 300],
  [/black|heavy/, 900],
  [/medium/, 500],
  [/bold/, 700],
];

/** fontconfig weight -> CSS weight (the points of fontconfig's own FcWeightToOpenType table). */
const FC_TO_CSS: readonly [number, number][] = [
  [0, 100], [40, 200], [50, 300], [55, 350], [75, 380], [80, 400], [100, 500], [180, 600], [200, 700], [205, 800], [210, 900], [215, 1000],
];

interface Face {
  readonly family: string;
  readonly style: string;
  readonly weights: readonly number[];
  readonly italic: boolean;
  readonly fixedWidth: boolean;
  readonly file: string;
}

const roundWeight = (weight: number) => Math.min(900, Math.max(100, Math.round(weight / 100) * 100));

const cssWeightOf = (fcWeight: number): number => {
  const upper = FC_TO_CSS.findIndex(([fc]) => fc >= fcWeight);
  if (upper <= 0) return FC_TO_CSS[upper === 0 ? 0 : FC_TO_CSS.length - 1]![1];
  const [fcHigh, cssHigh] = FC_TO_CSS[upper]!;
  const [fcLow, cssLow] = FC_TO_CSS[upper - 1]!;
  return cssLow + ((fcWeight - fcLow) * (cssHigh - cssLow)) / (fcHigh - fcLow);
};

/** The CSS weights a face covers: one, or every hundred of a variable font's range. */
const weightsOf = (style: string, fcWeight: string): number[] => {
  const compact = style.toLowerCase().replace(/[\s_-]/g, '');
  const named = STYLE_WEIGHTS.find(([pattern]) => pattern.test(compact));
  const numbers = (fcWeight.match(/\d+(\.\d+)?/g) ?? []).map(Number);
  if (numbers.length >= 2) {
    const [low, high] = [roundWeight(cssWeightOf(numbers[0]!)), roundWeight(cssWeightOf(numbers[1]!))];
    return Array.from({ length: (high - low) / 100 + 1 }, (_, index) => low + index * 100);
  }
  if (named) return [named[1]];
  return [numbers.length === 1 ? roundWeight(cssWeightOf(numbers[0]!)) : 400];
};

export const parseFcList = (output: string): Face[] =>
  output
    .split('\n')
    .map((line) => line.split('\t'))
    .filter((fields) => fields.length === 6 && fields[0] && fields[5])
    .map(([family = '', style = '', weight = '', slant = '', spacing = '', file = '']) => ({
      family: family.trim(),
      style,
      weights: weightsOf(style, weight),
      italic: Number(slant) > 0 || /italic|oblique/i.test(style),
      fixedWidth: FIXED_SPACINGS.has(spacing),
      file,
    }));

export const categoryOf = (family: string, faces: readonly Pick<Face, 'fixedWidth'>[]): string => {
  // Before the fixed-width check: colour emoji fonts declare fixed spacing.
  if (/emoji|symbol|music|icons?\b|display|decorative/i.test(family)) return 'display';
  if (faces.some((face) => face.fixedWidth) || /\bmono\b|code|courier|consol/i.test(family)) return 'monospace';
  if (/script|hand|brush|marker|dancing|pacifico|caveat|comic/i.test(family)) return 'handwriting';
  if ((/\bserif\b/i.test(family) && !/\bsans\b/i.test(family)) || /slab|garamond|times|georgia|merriweather|playfair|lora|tinos/i.test(family)) return 'serif';
  return 'sans-serif';
};

const isGoogleFamily = (family: string) => GOOGLE_FAMILIES.some((name) => family === name || family.startsWith(`${name} `));

export const groupFaces = async (faces: readonly Face[], statFile: (file: string) => Promise<{ size: number; mtime: Date }>): Promise<FontDto[]> => {
  const byFamily = new Map<string, Face[]>();
  for (const face of faces) byFamily.set(face.family, [...(byFamily.get(face.family) ?? []), face]);

  const fonts = await Promise.all(
    [...byFamily].map(async ([family, familyFaces]): Promise<FontDto> => {
      const styles = familyFaces.flatMap((face) => face.weights.map((weight) => ({ weight, italic: face.italic })));
      styles.sort((a, b) => a.weight - b.weight || Number(a.italic) - Number(b.italic));
      const variants = [...new Set(styles.map(({ weight, italic }) => variantName(weight, italic)))];
      const files = await Promise.all([...new Set(familyFaces.map((face) => face.file))].map(statFile));
      const oldest = Math.min(...files.map((file) => file.mtime.getTime()));
      return {
        originalName: family,
        family,
        variants,
        defaultVariant: variants.includes('regular') ? 'regular' : (variants[0] ?? 'regular'),
        subsets: ['latin'],
        category: categoryOf(family, familyFaces),
        // Only two sources exist in the API; installed fonts that Google does not serve count as custom.
        source: isGoogleFamily(family) ? 'GOOGLE' : 'CUSTOM',
        size: files.reduce((total, file) => total + file.size, 0),
        createdAt: new Date(oldest).toISOString(),
      };
    }),
  );
  return fonts.sort((a, b) => a.family.localeCompare(b.family));
};

/** The font families fontconfig (and so Chromium) finds on this machine; read once, then kept. */
export const createFontconfigCatalog = (): FontCatalog => {
  let loaded: Promise<FontDto[]> | null = null;
  const load = async () => {
    const { stdout } = await run('fc-list', ['--format', FC_FORMAT], { maxBuffer: 64 * 1024 * 1024 });
    return groupFaces(parseFcList(stdout), (file) => stat(file));
  };
  return {
    list() {
      loaded ??= load().catch((error: unknown) => {
        // A failed read is not cached: the next call tries again.
        loaded = null;
        throw error;
      });
      return loaded;
    },
  };
};
