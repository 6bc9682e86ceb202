import type { FontFacts } from '../../application/ports/asset-inspection.js';
import type { DomainError } from '../../domain/shared/errors.js';

/*
 * Runs in a worker thread of the parsing pool: the parsers of uploaded files, loaded on first use
 * so a thread that only ever sees fonts never loads a DOM. A refusal crosses back as plain data,
 * since an error's class and fields do not survive the copy between threads.
 */

/** The file's bytes travel as a copy: a Buffer arrives as the plain Uint8Array under it. */
export interface ParsingTask {
  readonly kind: 'font' | 'svg';
  readonly content: Uint8Array;
}

export interface ParsingResults {
  readonly font: FontFacts;
  readonly svg: string;
}

export interface Refusal {
  readonly message: string;
  readonly details: readonly string[];
}

export type ParsingOutcome<T> = { readonly value: T } | { readonly refusal: Refusal };

const parse = async ({ kind, content }: ParsingTask): Promise<ParsingResults[ParsingTask['kind']]> => {
  const bytes = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  if (kind === 'font') {
    const { fontkitInspector } = await import('../fonts/font-inspector.js');
    return fontkitInspector.inspect(bytes);
  }
  const { sanitizeSvg } = await import('../uploads/svg-sanitizer.js');
  return sanitizeSvg(bytes.toString('utf8'));
};

/**
 * By name, not class: Piscina loads this file through require and tsx then imports the parsers as
 * ES modules, each with a copy of the errors module of its own.
 */
const isRefusal = (error: unknown): error is DomainError => error instanceof Error && error.name === 'DomainError' && (error as DomainError).code === 'validation';

export default async (task: ParsingTask): Promise<ParsingOutcome<ParsingResults[ParsingTask['kind']]>> => {
  try {
    return { value: await parse(task) };
  } catch (error) {
    if (isRefusal(error)) return { refusal: { message: error.message, details: error.details } };
    throw error;
  }
};
