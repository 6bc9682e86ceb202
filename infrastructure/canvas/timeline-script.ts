import { fileURLToPath } from 'node:url';
import { browserBundle } from './browser-bundle.js';

const TIMELINE_MODULE = fileURLToPath(new URL('../../domain/templates/components/component-timeline.ts', import.meta.url));

/** The global the bundle defines in the page. */
export const TIMELINE_GLOBAL = '__canvasTimeline';

let bundled: string | undefined;

/**
 * The domain's component timeline, bundled for the browser: the page computes animated states
 * with the very code the service tests, instead of a second implementation that could drift.
 */
export const timelineScript = (): string => {
  bundled ??= browserBundle(TIMELINE_MODULE, TIMELINE_GLOBAL);
  return bundled;
};
