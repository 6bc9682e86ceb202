import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflows } from '../infrastructure/temporal/temporal-worker.js';

/*
 * Bundles the workflow code once, for images: workers started with WORKFLOW_BUNDLE_PATH load it
 * instead of bundling at every start.
 */
const target = path.resolve(process.argv[2] ?? 'workflow-bundle.json');
await writeFile(target, JSON.stringify(await bundleWorkflows()));
console.log(`wrote ${target}`);
