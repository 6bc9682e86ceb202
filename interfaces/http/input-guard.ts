/*
 * Every request passes here before any route: strings a database or event store cannot hold (NUL,
 * lone UTF-16 surrogates) and documents nested deeper than anything the API takes are refused as
 * a 400 naming where, before anything is read, written or charged. PostgreSQL refuses such strings
 * (a 500 deep inside), and an event holding one would stop every projection for good.
 */

/** Deeper than any template, component document or render data needs; recursive code stays far from the stack's end. */
export const MAX_INPUT_DEPTH = 32;

/** Where the first unacceptable value is, and why; null when the input is acceptable. */
export const findBadInput = (value: unknown, where: string): string | null => {
  const pending: { value: unknown; where: string; depth: number }[] = [{ value, where, depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const problem = badString(next.value, next.where);
    if (problem) return problem;
    if (typeof next.value !== 'object' || next.value === null) continue;
    if (next.depth >= MAX_INPUT_DEPTH) return `${next.where}: nested deeper than ${MAX_INPUT_DEPTH} levels`;
    for (const [key, child] of Object.entries(next.value)) {
      const childWhere = Array.isArray(next.value) ? `${next.where}[${key}]` : `${next.where}.${key}`;
      const keyProblem = badString(key, `${next.where} (a key)`);
      if (keyProblem) return keyProblem;
      pending.push({ value: child, where: childWhere, depth: next.depth + 1 });
    }
  }
  return null;
};

const badString = (value: unknown, where: string): string | null => {
  if (typeof value !== 'string') return null;
  if (value.includes('\u0000')) return `${where}: contains a NUL character (\\u0000)`;
  if (!value.isWellFormed()) return `${where}: contains a lone UTF-16 surrogate, which is not text`;
  return null;
};

/** The path's segments decoded, or the problem with them (bad percent-encoding, NUL, lone surrogates). */
export const findBadPath = (rawPath: string): string | null => {
  for (const segment of rawPath.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return `path: "${segment.slice(0, 100)}" is not valid percent-encoding`;
    }
    const problem = badString(decoded, 'path');
    if (problem) return problem;
  }
  return null;
};
