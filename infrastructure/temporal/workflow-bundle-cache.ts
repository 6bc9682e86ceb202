import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
  const digest = await sourcesDigest();
  const name = `${digest}${choice.traced ? '-traced' : ''}.json`;
  const file = path.join(dir, name);
  const kept = await loadWorkflowBundle(file).catch(() => null);
  if (kept) return kept;
  await mkdir(dir, { recursive: true });
  // Renamed into place whole: another process starting on the same folder never reads half a file.
  const written = path.join(dir, `${name}.${process.pid}.partial`);
  await bundleWorkflowsApart(written, choice);
  await rename(written, file);
  for (const other of await readdir(dir)) {
    if (!other.startsWith(digest) && other.endsWith('.json')) await rm(path.join(dir, other), { force: true });
  }
  return loadWorkflowBundle(file);
};
