/*
 * A family name goes into the CSS of every render of the organization (an @font-face rule inside
 * a <style> element), so it is held to characters that cannot end a string, a rule or the element.
 */
const FAMILY = /^[\p{L}\p{N}][\p{L}\p{N} _.,'&+()-]*$/u;
const MAX_FAMILY_LENGTH = 100;

/** What is wrong with a family name; null when it can be used. */
export const familyProblem = (family: string): string | null => {
  if (family.length === 0) return 'must not be empty';
  if (family.length > MAX_FAMILY_LENGTH) return `at most ${MAX_FAMILY_LENGTH} characters`;
  if (!FAMILY.test(family)) return `"${family}" may hold letters, digits, spaces and _ . , ' & + ( ) - only, starting with a letter or digit`;
  return null;
};

/** The font's own name with anything a family name may not hold dropped, for fonts that name themselves oddly. */
export const familyFromFont = (name: string): string =>
  name
    .replace(/[^\p{L}\p{N} _.,'&+()-]/gu, '')
    .replace(/^[^\p{L}\p{N}]+/u, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, MAX_FAMILY_LENGTH);
