import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { bundleWorkflows } from '../infrastructure/temporal/temporal-worker.js';

/*
 * Bundles the workflow code once, for images: workers started with WORKFLOW_BUNDLE_PATH load it
 * instead of bundling at every start. `--traced` includes the tracing interceptors, for workers
 * that export spans (an OTLP endpoint set: exportsSpans in infrastructure/tracing/tracing.ts).
 */
const { positionals, values } = parseArgs({ allowPositionals: true, options: { traced: { type: 'boolean', default: false } } });
const target = path.resolve(positionals[0] ?? 'workflow-bundle.json');
await writeFile(target, JSON.stringify(await bundleWorkflows({ traced: values.traced })));
console.log(`wrote ${target}${values.traced ? ' (traced)' : ''}`);
