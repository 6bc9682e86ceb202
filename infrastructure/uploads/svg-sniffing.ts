const SVG_START = /^(\s|<\?xml[^>]*\?>|<!--[\s\S]*?-->|<!doctype\s+svg[^>]*>)*<svg[\s>]/i;

/** Whether the text is an SVG document (an XML prolog, comments or a doctype may come first). */
export const looksLikeSvg = (text: string): boolean => SVG_START.test(text.replace(/^\uFEFF/, ''));
