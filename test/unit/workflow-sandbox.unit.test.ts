import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { workflowSandboxOptions } from '../../infrastructure/temporal/temporal-worker.js';

/*
 * npm install applies patches/@temporalio+worker+*.patch: with it, workers run workflows on their
 * process's main thread, call into the sandbox without a watchdog thread per call and hook none of
 * a workflow's promises (temporal-worker.ts says why). A lock file or SDK upgrade that leaves the
 * patch unapplied fails here, not only in bench:render's figures.
 */
describe('the workflow sandbox of this install', () => {
  it('is patched, so workers run workflows on the main thread, without a timeout or stack traces, and say nothing about it', () => {
    const warn = vi.fn();
    expect(workflowSandboxOptions(warn)).toEqual({ isolateExecutionTimeout: Infinity, debugMode: true, workflowStackTraces: false });
    expect(warn).not.toHaveBeenCalled();
  });

  it("keeps the SDK's own defaults on an install without the patch, and says so", () => {
    const warn = vi.fn();
    // Only the patch makes an infinite timeout mean no watchdog, and adds the option for stack traces.
    expect(workflowSandboxOptions(warn, false)).toEqual({ isolateExecutionTimeout: '5s' });
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/not patched/));
  });

  it('bounds every call it makes into node:vm through the patched timeout, none with a raw one (an SDK upgrade adding a call shows here)', () => {
    const source = readFileSync(createRequire(import.meta.url).resolve('@temporalio/worker/lib/workflow/reusable-vm.js'), 'utf8');
    const calls = source.match(/timeout: [^,\n]+/g) ?? [];
    expect(calls.length).toBeGreaterThan(0);
    expect(new Set(calls)).toEqual(new Set(['timeout: sandboxTimeout(isolateExecutionTimeoutMs)']));
  });
});
