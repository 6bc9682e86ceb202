import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

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

/**
 * The tiers in the order their files start: the service tiers' long files first, the unit files'
 * short ones last, where they fill the workers the long ones leave idle at the end. Within a tier,
 * vitest's own order (the slowest or, on a first run, the largest files first).
 */
const TIER_ORDER = ['e2e', 'e2e-own-process', 'int', 'workflow', 'unit'];
class LongTiersFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const tier = (file: TestSpecification) => TIER_ORDER.indexOf(file.project.name);
    // Array sort is stable: each tier keeps the order vitest gave its files.
    return (await super.sort(files)).sort((a, b) => tier(a) - tier(b));
  }
}

export default defineConfig({
  test: {
    // The machine this runs on has two cores, and services under test need CPU too; but a test file
    // spends much of its time waiting (on Temporal, timers, processes it killed), so three files at once
    // keep the cores busier than two without starving them (docs/benchmarks.md, Other timings).
    maxWorkers: 3,
    // Declared once at the root, not per project, so a run spanning tiers starts one server.
    globalSetup: ['test/support/global-setup.ts'],
    sequence: { sequencer: LongTiersFirst },
    projects: [
      // A unit test's timeout guards against a hang, not a slow machine: some compress fonts or draw barcodes, seconds of CPU on a busy one.
      // Unit files share their test process (no fresh import of the application per file): they hold no state between files.
      { test: { name: 'unit', include: ['test/unit/**/*.unit.test.ts'], pool: 'forks', isolate: false, testTimeout: 30_000 } },
      // Each file starts a Temporal server of its own; its workflows retry in real time, in milliseconds.
      { test: { name: 'workflow', include: ['test/workflows/**/*.workflow.test.ts'], pool: 'forks', testTimeout: 30_000, hookTimeout: 60_000 } },
      { test: { name: 'int', include: ['test/int/**/*.int.test.ts'], ...serviceTier } },
      { test: { name: 'e2e', include: ['test/e2e/**/*.e2e.test.ts'], exclude: OWN_PROCESS, ...serviceTier } },
      { test: { name: 'e2e-own-process', include: OWN_PROCESS, ...serviceTier, isolate: true } },
    ],
  },
});
