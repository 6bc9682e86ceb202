import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { browserBundle } from '../../canvas/browser-bundle.js';
import type { FitReport } from './fit-report.js';

const FIT_MODULE = fileURLToPath(new URL('./fit-text.ts', import.meta.url));
const FIT_GLOBAL = '__textFit';

/** The elements fitting works on; a document without the attribute is not fitted, at no cost. */
export const needsFitting = (html: string): boolean => html.includes('data-fit');

let bundled: string | undefined;
const fitBundle = () => (bundled ??= browserBundle(FIT_MODULE, FIT_GLOBAL));

/**
 * A function declaration (for Runtime.callFunctionOn) that fits the text of the document `documentExpression`
 * names, with the very code fit-text.ts holds, and returns its report. The bundle is declared inside
 * the function: nothing is left in the page's globals.
 */
export const fitTextFunction = (documentExpression: string): string =>
  `function () { ${fitBundle()}; return ${FIT_GLOBAL}.fitText(${documentExpression}); }`;

/** A report as the page returned it: a template's scripts share the document, so its shape is checked, not trusted. */
const reportSchema = z.object({
  fitted: z.record(z.string().max(200), z.object({ fontSize: z.number().finite().nonnegative(), lines: z.number().int().nonnegative(), truncated: z.boolean() })),
  unfit: z.array(z.string().max(200)),
});

/** Elements reported per render, at most (the page fits no more than this): the report goes into the render's outcome. */
const MAX_REPORTED = 500;

export const parseFitReport = (value: unknown): FitReport => {
  const report = reportSchema.parse(value);
  return { fitted: Object.fromEntries(Object.entries(report.fitted).slice(0, MAX_REPORTED)), unfit: report.unfit.slice(0, MAX_REPORTED) };
};
