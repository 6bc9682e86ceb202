import { buildSync } from 'esbuild';
import { fileURLToPath } from 'node:url';

const TIMELINE_MODULE = fileURLToPath(new URL('../../domain/templates/components/component-timeline.ts', import.meta.url));

/** The global the bundle defines in the page. */
export const TIMELINE_GLOBAL = '__canvasTimeline';

const bundle = (): string => {
  const output = buildSync({
    entryPoints: [TIMELINE_MODULE],
    bundle: true,
    format: 'iife',
    globalName: TIMELINE_GLOBAL,
    platform: 'browser',
    target: 'chrome120',
    minify: true,
    legalComments: 'none',
    write: false,
  }).outputFiles[0]?.text;
  if (!output) throw new Error(`esbuild produced no bundle of ${TIMELINE_MODULE}`);
  return output;
};

let bundled: string | undefined;

/**
 * The domain's component timeline, bundled for the browser: the page computes animated states
 * with the very code the service tests, instead of a second implementation that could drift.
 */
export const timelineScript = (): string => {
  bundled ??= bundle();
  return bundled;
};
