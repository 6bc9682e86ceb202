import type { FontStyle } from '../../domain/accounts/asset-events.js';
import type { FontDto } from '../ports/font-catalog.js';
import type { FontView } from '../ports/read-models.js';

/** Google Fonts' style names: `regular`, `italic`, `700`, `700italic`. */
export const variantName = (weight: number, italic: boolean) => (weight === 400 ? (italic ? 'italic' : 'regular') : `${weight}${italic ? 'italic' : ''}`);

const isItalic = (style: FontStyle) => style === 'italic';

/** An uploaded font as the spec's Font, with the identifier that deletes it. */
export type CustomFontDto = FontDto & { readonly identifier: string };

export const toCustomFontDto = (view: FontView): CustomFontDto => {
  const variant = variantName(view.weight, isItalic(view.style));
  return {
    identifier: view.id,
    originalName: view.originalName,
    family: view.family,
    variants: [variant],
    defaultVariant: variant,
    subsets: [...view.subsets],
    category: view.category,
    source: 'CUSTOM',
    size: view.bytes,
    createdAt: view.createdAt.toISOString(),
  };
};
