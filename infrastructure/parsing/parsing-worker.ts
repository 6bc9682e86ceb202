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
  /** Only loads the parser of `kind` and parses nothing: a thread's start and a parser's load are not a file's time. */
  readonly warmOnly?: boolean;
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

const parserOf = async (kind: ParsingTask['kind']): Promise<(bytes: Buffer) => Promise<ParsingResults[ParsingTask['kind']]> | ParsingResults[ParsingTask['kind']]> => {
  if (kind === 'font') {
    const { fontkitInspector } = await import('../fonts/font-inspector.js');
    return (bytes) => fontkitInspector.inspect(bytes);
  }
  const { sanitizeSvg } = await import('../uploads/svg-sanitizer.js');
  return (bytes) => sanitizeSvg(bytes.toString('utf8'));
};

/** A parser whose first use builds more (the sanitizer's DOM window) parses one of these while warming up. */
const WARM_UP_SAMPLES: Partial<Record<ParsingTask['kind'], Buffer>> = { svg: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') };

const parse = async ({ kind, content }: ParsingTask): Promise<ParsingResults[ParsingTask['kind']]> =>
  (await parserOf(kind))(Buffer.from(content.buffer, content.byteOffset, content.byteLength));

/**
 * By name, not class: Piscina loads this file through require, and whether the parsers it imports
 * share its copy of the errors module is up to the loader (under tsx they did not).
 */
const isRefusal = (error: unknown): error is DomainError => error instanceof Error && error.name === 'DomainError' && (error as DomainError).code === 'validation';

export default async (task: ParsingTask): Promise<ParsingOutcome<ParsingResults[ParsingTask['kind']] | null>> => {
  if (task.warmOnly) {
    const parser = await parserOf(task.kind);
    const sample = WARM_UP_SAMPLES[task.kind];
    if (sample) await parser(sample);
    return { value: null };
  }
  try {
    return { value: await parse(task) };
  } catch (error) {
    if (isRefusal(error)) return { refusal: { message: error.message, details: error.details } };
    throw error;
  }
};
