import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { cachedWorkflowBundle } from '../../infrastructure/temporal/workflow-bundle-cache.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

it('bundles once per set of sources: a later start reads the kept bundle, and older bundles go', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'workflow-bundles-'));
  dirs.push(dir);
  await writeFile(path.join(dir, 'from-older-sources.json'), '{}');

  const built = await cachedWorkflowBundle(dir);
  expect(built.code).toContain('renderWorkflow');
  const kept = await readdir(dir);
  expect(kept).toHaveLength(1);
  expect(kept[0]).toMatch(/^[0-9a-f]{32}\.json$/);

  // The same sources again: the kept file is read, not rebuilt (its content stands, even altered).
  const file = path.join(dir, kept[0] as string);
  await writeFile(file, JSON.stringify({ code: '/* kept */', sourceMap: '{}' }));
  expect((await cachedWorkflowBundle(dir)).code).toBe('/* kept */');

  // A file that is not a bundle is built again rather than handed to the worker.
  await writeFile(file, 'not json');
  expect((await cachedWorkflowBundle(dir)).code).toContain('renderWorkflow');
}, 120_000);
