import type { CustomFont, Font, Upload } from './types.js';

/** GET /api/v1/fonts lists the machine's fonts, then the organization's uploads: only these have an identifier. */
export const isCustomFont = (font: Font | CustomFont): font is CustomFont => typeof (font as Partial<CustomFont>).identifier === 'string';

export interface FontFamilies {
  /** Families of the organization's uploaded fonts. */
  readonly uploaded: readonly string[];
  /** The machine's families an upload does not take over (a page's @font-face wins over an installed font). */
  readonly builtIn: readonly string[];
}

const sortedUnique = (names: readonly string[]) => [...new Set(names)].sort((a, b) => a.localeCompare(b));

/** The families a template may name, each once: an uploaded file is one face, and a family may have several. */
export const fontFamilies = (fonts: readonly (Font | CustomFont)[]): FontFamilies => {
  const uploaded = sortedUnique(fonts.filter(isCustomFont).map((font) => font.family));
  const taken = new Set(uploaded);
  return { uploaded, builtIn: sortedUnique(fonts.filter((font) => !isCustomFont(font) && !taken.has(font.family)).map((font) => font.family)) };
};

/** The document's family when neither list has it (a font since deleted, or a name typed elsewhere), so a form keeps it. */
export const unlistedFamily = (families: FontFamilies, current: string): string | null =>
  current === '' || families.uploaded.includes(current) || families.builtIn.includes(current) ? null : current;

export const formatBytes = (bytes: number): string => {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `${(bytes / 1024 / 1024 / 1024).toFixed(1)} GB`;
};

/** What an upload is, for people (uploads have no name): `PNG 64 x 64, 1.2 KB`. */
export const describeUpload = (upload: Pick<Upload, 'contentType' | 'width' | 'height' | 'size'>): string =>
  `${upload.contentType.replace(/^image\//, '').replace(/\+xml$/, '').toUpperCase()} ${upload.width} x ${upload.height}, ${formatBytes(upload.size)}`;

/** A font file's form: the family is sent only when one was typed (the service then uses the font's own). */
export const fontForm = (form: FormData): FormData => {
  const family = form.get('family');
  if (typeof family === 'string' && family.trim() !== '') form.set('family', family.trim());
  else form.delete('family');
  return form;
};
