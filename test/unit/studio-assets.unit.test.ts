import { describe, expect, it } from 'vitest';
import { describeUpload, fontFamilies, fontForm, formatBytes, isCustomFont, unlistedFamily } from '../../studio/src/assets.js';
import { routeOf } from '../../studio/src/hash-route.js';
import type { CustomFont, Font } from '../../studio/src/types.js';

const font = (family: string): Font => ({ originalName: family, family, variants: ['regular'], defaultVariant: 'regular', subsets: ['latin'], category: 'sans-serif', source: 'GOOGLE', size: 0, createdAt: '2026-01-01T00:00:00.000Z' });
const custom = (family: string, identifier: string): CustomFont => ({ ...font(family), source: 'CUSTOM', identifier });

describe('the studio\'s assets', () => {
  it('tells uploaded fonts (with an identifier) from the machine\'s, whatever their source says', () => {
    expect(isCustomFont(custom('Brand', 'f1'))).toBe(true);
    expect(isCustomFont({ ...font('Installed'), source: 'CUSTOM' })).toBe(false);
  });

  it('offers each family once, uploaded ones apart, and an uploaded family takes over an installed one of its name', () => {
    const families = fontFamilies([font('Roboto'), font('DejaVu Sans'), font('Roboto'), custom('Brand', 'f1'), custom('Brand', 'f2'), custom('Roboto', 'f3')]);
    expect(families).toEqual({ uploaded: ['Brand', 'Roboto'], builtIn: ['DejaVu Sans'] });
  });

  it('keeps a family the document names outside the list as a choice of its own', () => {
    const families = { uploaded: ['Brand'], builtIn: ['DejaVu Sans'] };
    expect(unlistedFamily(families, 'Brand')).toBeNull();
    expect(unlistedFamily(families, 'DejaVu Sans')).toBeNull();
    expect(unlistedFamily(families, '')).toBeNull();
    expect(unlistedFamily(families, 'Deleted Font')).toBe('Deleted Font');
  });

  it('describes sizes and uploads for people', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(20 * 1024 * 1024)).toBe('20.0 MB');
    expect(formatBytes(1024 * 1024 * 1024)).toBe('1.0 GB');
    expect(describeUpload({ contentType: 'image/svg+xml', width: 64, height: 32, size: 2048 })).toBe('SVG 64 x 32, 2.0 KB');
    expect(describeUpload({ contentType: 'image/png', width: 90, height: 60, size: 252 })).toBe('PNG 90 x 60, 252 B');
  });

  it('sends a font\'s family only when one was typed, trimmed', () => {
    const typed = new FormData();
    typed.set('file', new Blob(['x']), 'a.ttf');
    typed.set('family', '  Brand Mono ');
    expect(fontForm(typed).get('family')).toBe('Brand Mono');
    const blank = new FormData();
    blank.set('family', '   ');
    expect(fontForm(blank).has('family')).toBe(false);
  });

  it('has a page of its own in the URL fragment', () => {
    expect(routeOf('#/assets')).toEqual({ page: 'assets' });
  });
});
