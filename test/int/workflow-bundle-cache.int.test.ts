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

  const built = await cachedWorkflowBundle(dir, { traced: false });
  expect(built.code).toContain('renderWorkflow');
  expect(built.traced).toBe(false);
  const kept = await readdir(dir);
  expect(kept).toHaveLength(1);
  expect(kept[0]).toMatch(/^[0-9a-f]{32}\.json$/);

  // The same sources again: the kept file is read, not rebuilt (its content stands, even altered).
  const file = path.join(dir, kept[0] as string);
  await writeFile(file, JSON.stringify({ code: '/* kept */', sourceMap: '{}', traced: false }));
  expect((await cachedWorkflowBundle(dir, { traced: false })).code).toBe('/* kept */');

  // A file that is not a bundle is built again rather than handed to the worker.
  await writeFile(file, 'not json');
  expect((await cachedWorkflowBundle(dir, { traced: false })).code).toContain('renderWorkflow');
}, 120_000);

it('keeps a traced and an untraced bundle of the same sources side by side; only the traced one holds the interceptors', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'workflow-bundles-'));
  dirs.push(dir);
  const [plain, traced] = [await cachedWorkflowBundle(dir, { traced: false }), await cachedWorkflowBundle(dir, { traced: true })];
  expect([plain.traced, traced.traced]).toEqual([false, true]);
  expect(plain.code).not.toContain('OpenTelemetryInboundInterceptor');
  expect(traced.code).toContain('OpenTelemetryInboundInterceptor');
  expect((await readdir(dir)).sort()).toEqual([expect.stringMatching(/^[0-9a-f]{32}-traced\.json$/), expect.stringMatching(/^[0-9a-f]{32}\.json$/)]);
}, 120_000);
