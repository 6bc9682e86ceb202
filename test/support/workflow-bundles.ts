import { inject } from 'vitest';
import { loadWorkflowBundle, type WorkflowBundle } from '../../infrastructure/temporal/temporal-worker.js';

/** The file of the run's workflow bundle of a kind, which the global setup built once for every test file. */
export const workflowBundleFile = (traced: boolean): string => {
  const files = inject('workflowBundleFiles');
  if (!files) throw new Error('no workflow bundle: the global setup builds it for runs with the workflow, int or e2e tier');
  return traced ? files.traced : files.plain;
};

const loaded = new Map<boolean, Promise<WorkflowBundle>>();

/** The run's workflow bundle of a kind, read once per test file. */
export const workflowBundleOf = (traced: boolean): Promise<WorkflowBundle> => {
  const bundle = loaded.get(traced) ?? loadWorkflowBundle(workflowBundleFile(traced));
  loaded.set(traced, bundle);
  return bundle;
};
