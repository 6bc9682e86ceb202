import { describe, expect, it } from 'vitest';
import { resumeBatches } from '../../application/batches/resume-batches/resume-batches.js';

describe('resuming batches', () => {
  it('starts again every batch not ended that was accepted before the grace period, and no younger one', async () => {
    const now = new Date('2026-11-28T10:00:00.000Z');
    const accepted = [
      { batchId: 'old', orgId: 'org-a', at: new Date('2026-11-28T09:50:00.000Z') },
      { batchId: 'older', orgId: 'org-b', at: new Date('2026-11-28T09:00:00.000Z') },
      { batchId: 'young', orgId: 'org-a', at: new Date('2026-11-28T09:59:30.000Z') },
    ];
    const started: string[] = [];
    const resumed = await resumeBatches({
      batches: { unended: async (before, limit) => accepted.filter((batch) => batch.at < before).slice(0, limit) },
      orchestrator: { startBatch: async ({ batchId }) => void started.push(batchId) },
      clock: { now: () => now },
      graceMs: 120_000,
      limit: 10,
    });
    expect(resumed).toEqual(['old', 'older']);
    expect(started).toEqual(['old', 'older']);
  });
});
