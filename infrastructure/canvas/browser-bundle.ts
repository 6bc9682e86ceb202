import { buildSync } from 'esbuild';

/**
 * A module of the service bundled for the browser as one script that defines `globalName`: the page
 * runs the very code the service tests, instead of a second implementation that could drift.
 */
export const browserBundle = (entryPoint: string, globalName: string): string => {
  const output = buildSync({
    entryPoints: [entryPoint],
    bundle: true,
    format: 'iife',
    globalName,
    platform: 'browser',
    target: 'chrome120',
    minify: true,
    legalComments: 'none',
    write: false,
  }).outputFiles[0]?.text;
  if (!output) throw new Error(`esbuild produced no bundle of ${entryPoint}`);
  return output;
};
