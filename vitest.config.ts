import { defineConfig } from 'vitest/config';

/** Tiers that reach real services; they share the one PostgreSQL the global setup starts. */
const serviceTier = {
  pool: 'forks' as const,
  // A test process keeps its modules from one file to the next: importing the service (Chromium's
  // driver, Temporal's SDK, the ORM, the renderers) again for every file cost more than its tests.
  // Each file still starts its own app on its own database and task queue.
  isolate: false,
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

/**
 * Files that configure what a process has once (the Temporal SDK's runtime and its metrics port):
 * each runs in a test process of its own.
 */
const OWN_PROCESS = ['test/e2e/operations.e2e.test.ts'];

export default defineConfig({
  test: {
    // The machine this runs on has two cores, and services under test need CPU too; but a test file
    // spends much of its time waiting (on Temporal, timers, processes it killed), so three files at once
    // keep the cores busier than two without starving them (docs/benchmarks.md, Other timings).
    maxWorkers: 3,
    // Declared once at the root, not per project, so a run spanning tiers starts one server.
    globalSetup: ['test/support/global-setup.ts'],
    projects: [
      // A unit test's timeout guards against a hang, not a slow machine: some compress fonts or draw barcodes, seconds of CPU on a busy one.
      { test: { name: 'unit', include: ['test/unit/**/*.unit.test.ts'], pool: 'forks', testTimeout: 30_000 } },
      // Each file starts a Temporal server of its own; its workflows retry in real time, in milliseconds.
      { test: { name: 'workflow', include: ['test/workflows/**/*.workflow.test.ts'], pool: 'forks', testTimeout: 30_000, hookTimeout: 60_000 } },
      { test: { name: 'int', include: ['test/int/**/*.int.test.ts'], ...serviceTier } },
      { test: { name: 'e2e', include: ['test/e2e/**/*.e2e.test.ts'], exclude: OWN_PROCESS, ...serviceTier } },
      { test: { name: 'e2e-own-process', include: OWN_PROCESS, ...serviceTier, isolate: true } },
    ],
  },
});
