import type { TestProject } from 'vitest/node';
import { provideWorkflowBundles } from '../../support/provide-workflow-bundles.js';
import { removeNetwork } from './network.js';

/** Namespaces, veths and the bridge an earlier run left (it was killed, or its teardown failed) go first; this run's go last, whatever the outcome. */
export default async function setup(project: TestProject): Promise<() => void> {
  removeNetwork();
  await provideWorkflowBundles(project);
  return removeNetwork;
}
