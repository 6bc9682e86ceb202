import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { bundleWorkflowsApart, loadWorkflowBundle, type BundleChoice, type WorkflowBundle } from './temporal-worker.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** Everything the workflow bundle is built from: the folders workflows import from, and the locked packages. */
const SOURCE_FOLDERS = ['workflows', 'domain', 'application'];
const LOCK_FILE = 'package-lock.json';

const sourceFiles = async (): Promise<string[]> => {
  const found: string[] = [];
  for (const folder of SOURCE_FOLDERS) {
    for (const entry of await readdir(path.join(root, folder), { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith('.ts')) found.push(path.relative(root, path.join(entry.parentPath, entry.name)));
    }
  }
  return [...found.sort(), LOCK_FILE];
};

/** Names a bundle by what it was built from, so an edit anywhere it could include makes a new one. */
const sourcesDigest = async (): Promise<string> => {
  const hash = createHash('sha256');
  for (const file of await sourceFiles()) hash.update(`${file}\0`).update(await readFile(path.join(root, file))).update('\0');
  return hash.digest('hex').slice(0, 32);
};

/**
 * The workflow bundle for these sources, from dir when a start before built it (milliseconds),
 * or bundled now (seconds) and kept there for the next start. Bundles of older sources are removed;
 * the other kind (traced or not) of the same sources stays, for a start that turns tracing on or off.
 */
export const cachedWorkflowBundle = async (dir: string, choice: BundleChoice): Promise<WorkflowBundle> => {
  const { file, kept } = await bundleFileIn(dir, choice);
  return kept ?? loadWorkflowBundle(file);
};

/** The file of cachedWorkflowBundle, for processes that load it themselves (WORKFLOW_BUNDLE_PATH). */
export const cachedWorkflowBundleFile = async (dir: string, choice: BundleChoice): Promise<string> => (await bundleFileIn(dir, choice)).file;

/** The bundle's file in dir, built if missing; with the bundle itself when it was already there (read to check it whole). */
const bundleFileIn = async (dir: string, choice: BundleChoice): Promise<{ file: string; kept: WorkflowBundle | null }> => {
  const digest = await sourcesDigest();
  const name = `${digest}${choice.traced ? '-traced' : ''}.json`;
  const file = path.join(dir, name);
  const kept = await loadWorkflowBundle(file).catch(() => null);
  if (kept) return { file, kept };
  await mkdir(dir, { recursive: true });
  // Renamed into place whole: another process starting on the same folder never reads half a file.
  const written = path.join(dir, `${name}.${process.pid}.partial`);
  await bundleWorkflowsApart(written, choice);
  await rename(written, file);
  for (const other of await readdir(dir)) {
    if (!other.startsWith(digest) && other.endsWith('.json')) await rm(path.join(dir, other), { force: true });
  }
  return { file, kept: null };
};

/**
 * The prebuilt bundle at `prebuiltPath` (the image's) when it is of the kind this process needs
 * (traced when it exports spans), else one built for these sources and kept in `dataDir`: a traced
 * bundle costs CPU on every workflow, an untraced one leaves the workflow out of the trace.
 */
export const prebuiltOrCachedBundle = async (prebuiltPath: string | undefined, dataDir: string, choice: BundleChoice, logger: Logger): Promise<WorkflowBundle> => {
  const cached = () => cachedWorkflowBundle(path.join(dataDir, 'workflow-bundles'), choice);
  if (!prebuiltPath) return cached();
  const prebuilt = await loadWorkflowBundle(prebuiltPath);
  if (prebuilt.traced === choice.traced) return prebuilt;
  logger.warn(
    { workflowBundle: prebuiltPath, bundleTraced: prebuilt.traced, tracing: choice.traced },
    `the prebuilt workflow bundle is ${prebuilt.traced ? '' : 'not '}traced and tracing is ${choice.traced ? 'on' : 'off'}: bundling the other kind into DATA_DIR (set WORKFLOW_BUNDLE_PATH to a bundle of the right kind, the image has /app/workflow-bundle.json and /app/workflow-bundle.traced.json, to start without it)`,
  );
  return cached();
};
