import { defineConfig } from 'vitest/config';

/**
 * `npm run test:faults`: the multi-host fault test, apart from `npm test` (it needs root for network
 * namespaces and takes minutes). It brings every server it needs, on hosts of its own.
 * `npm run test:batch-crash` runs the batch crash test with the same setup (FAULTS_TESTS).
 */
export default defineConfig({
  test: {
    include: [process.env.FAULTS_TESTS ?? 'test/faults/**/*.faults.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    globalSetup: ['test/faults/support/global-setup.ts'],
    testTimeout: 900_000,
    hookTimeout: 300_000,
  },
});
