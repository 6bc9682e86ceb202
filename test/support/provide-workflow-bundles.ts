import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { cachedWorkflowBundleFile } from '../../infrastructure/temporal/workflow-bundle-cache.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The workflow bundle files of both kinds, for every file that runs workflows; absent in unit-only runs. */
    workflowBundleFiles?: { readonly plain: string; readonly traced: string };
  }
}

/**
 * Bundling the workflows takes seconds of CPU: a global setup does it once per run (kept between
 * runs for the same sources, in node_modules' cache) instead of every test file that starts a worker.
 */
const WORKFLOW_BUNDLE_DIR = fileURLToPath(new URL('../../node_modules/.cache/render-service/workflow-bundles', import.meta.url));

export const provideWorkflowBundles = async (project: TestProject): Promise<void> => {
  const [plain, traced] = await Promise.all([cachedWorkflowBundleFile(WORKFLOW_BUNDLE_DIR, { traced: false }), cachedWorkflowBundleFile(WORKFLOW_BUNDLE_DIR, { traced: true })]);
  project.provide('workflowBundleFiles', { plain, traced });
};
