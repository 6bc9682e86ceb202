import { describe, expect, it } from 'vitest';
import { groupFaces, parseFcList } from '../../infrastructure/fonts/font-catalog.js';

const line = (...fields: string[]) => fields.join('\t');

const FC_OUTPUT = [
  line('Roboto', 'Regular', '80', '0', '', '/fonts/Roboto-Regular.ttf'),
  line('Roboto', 'Bold Italic', '200', '100', '', '/fonts/Roboto-BoldItalic.ttf'),
  line('Roboto', 'Thin', '45', '0', '', '/fonts/Roboto-Thin.ttf'),
  line('DejaVu Sans Mono', 'Book', '80', '0', '100', '/fonts/DejaVuSansMono.ttf'),
  line('DejaVu Sans Mono', 'Oblique', '80', '110', '100', '/fonts/DejaVuSansMono-Oblique.ttf'),
  line('Liberation Serif', 'Regular', '80', '0', '', '/fonts/LiberationSerif-Regular.ttf'),
  line('Open Sans', 'Semibold', '180', '0', '', '/fonts/OpenSans-Semibold.ttf'),
  line('Noto Color Emoji', 'Regular', '80', '0', '100', '/fonts/NotoColorEmoji.ttf'),
  line('Inter', 'Regular', '[0 210]', '0', '', '/fonts/Inter-Variable.ttf'),
  '',
].join('\n');

const stats: Record<string, { size: number; mtime: Date }> = {
  '/fonts/Roboto-Regular.ttf': { size: 100, mtime: new Date('2020-01-02T00:00:00Z') },
  '/fonts/Roboto-BoldItalic.ttf': { size: 200, mtime: new Date('2020-01-01T00:00:00Z') },
  '/fonts/Roboto-Thin.ttf': { size: 50, mtime: new Date('2020-01-03T00:00:00Z') },
};
const statFile = async (file: string) => stats[file] ?? { size: 10, mtime: new Date('2021-06-01T00:00:00Z') };

describe('font catalog', () => {
  it('groups faces into families with Google-style variants, category, source, size and date', async () => {
    const fonts = await groupFaces(parseFcList(FC_OUTPUT), statFile);
    const byFamily = Object.fromEntries(fonts.map((font) => [font.family, font]));
    expect(fonts.map((font) => font.family)).toEqual(['DejaVu Sans Mono', 'Inter', 'Liberation Serif', 'Noto Color Emoji', 'Open Sans', 'Roboto']);
    expect(byFamily.Roboto).toEqual({
      originalName: 'Roboto',
      family: 'Roboto',
      variants: ['100', 'regular', '700italic'],
      defaultVariant: 'regular',
      subsets: ['latin'],
      category: 'sans-serif',
      source: 'GOOGLE',
      size: 350,
      createdAt: '2020-01-01T00:00:00.000Z',
    });
    expect(byFamily['DejaVu Sans Mono']).toMatchObject({ variants: ['regular', 'italic'], category: 'monospace', source: 'CUSTOM' });
    expect(byFamily['Liberation Serif']).toMatchObject({ category: 'serif', source: 'CUSTOM' });
    expect(byFamily['Open Sans']).toMatchObject({ variants: ['600'], defaultVariant: '600', source: 'GOOGLE' });
    expect(byFamily['Noto Color Emoji']).toMatchObject({ category: 'display', source: 'GOOGLE' });
    expect(byFamily.Inter?.variants).toEqual(['100', '200', '300', 'regular', '500', '600', '700', '800', '900']);
  });

  it('skips lines it cannot read', () => {
    expect(parseFcList('garbage\n\tRegular\t80\t0\t\t/x.ttf\n')).toEqual([]);
  });
});
