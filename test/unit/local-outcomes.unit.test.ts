import type { Client } from '@temporalio/client';
import { describe, expect, it, vi } from 'vitest';
import type { StoredFile } from '../../domain/renders/render-events.js';
import { createLocalOutcomes } from '../../infrastructure/temporal/local-outcomes.js';
import { createTemporalRenderOrchestrator, TEMPORAL_POLL_AFTER_MS } from '../../infrastructure/temporal/temporal-render-orchestrator.js';

const FILE: StoredFile = { storageKey: 'org/req-1/card.png', fileName: 'card.png', contentType: 'image/png', bytes: 120, width: 10, height: 10 };

/** A Temporal client whose result long poll only ends when it is aborted (or answers `outcome` when given). */
const fakeClient = (outcome?: unknown) => {
  const polls = { started: 0, aborted: 0 };
  const client = {
    connection: {
      withAbortSignal: <T>(signal: AbortSignal, fn: () => Promise<T>) => {
        polls.started += 1;
        return new Promise<T>((resolve, reject) => {
          signal.addEventListener('abort', () => {
            polls.aborted += 1;
            reject(new Error('cancelled'));
          });
          fn().then(resolve, reject);
        });
      },
    },
    workflow: { getHandle: () => ({ result: () => (outcome === undefined ? new Promise(() => {}) : Promise.resolve(outcome)) }) },
  } as unknown as Client;
  return { client, polls };
};

describe('outcomes recorded in this process', () => {
  it('reach the caller listening for that request only, and nothing is kept for requests nobody listens for', async () => {
    const outcomes = createLocalOutcomes();
    outcomes.recorded('req-0', { status: 'done', file: FILE, position: 1 });
    const one = outcomes.listen('req-1');
    const two = outcomes.listen('req-2');
    outcomes.recorded('req-1', { status: 'done', file: FILE, position: 7 });
    await expect(one.outcome).resolves.toEqual({ status: 'done', file: FILE, position: 7 });
    const late = await Promise.race([two.outcome, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 20))]);
    expect(late).toBe('still waiting');
    two.stop();
    one.stop();
  });

  it('answer a waiting caller without asking Temporal at all when the local worker records the outcome first', async () => {
    const outcomes = createLocalOutcomes();
    const { client, polls } = fakeClient();
    const orchestrator = createTemporalRenderOrchestrator({ client, taskQueue: 'renders', localOutcomes: outcomes });
    const waiting = orchestrator.waitForOutcome('req-1', 5_000);
    outcomes.recorded('req-1', { status: 'done', file: FILE, position: 9 });
    await expect(waiting).resolves.toEqual({ status: 'done', file: FILE, position: 9 });
    expect(polls).toEqual({ started: 0, aborted: 0 });
  });

  it('answer failures the same way, with their code and Retry-After', async () => {
    const outcomes = createLocalOutcomes();
    const { client, polls } = fakeClient();
    const orchestrator = createTemporalRenderOrchestrator({ client, taskQueue: 'renders', localOutcomes: outcomes });
    const waiting = orchestrator.waitForOutcome('req-1', 5_000);
    const failed = { status: 'failed', reason: 'the pool is full', code: 'unavailable', retryAfterSeconds: 3, position: 4 } as const;
    outcomes.recorded('req-1', failed);
    await expect(waiting).resolves.toEqual(failed);
    expect(polls.started).toBe(0);
  });

  it("ask Temporal for other workers' outcomes once the local worker has been silent for a while, and cancel nothing it did not start", async () => {
    vi.useFakeTimers();
    try {
      const failed = { status: 'failed', reason: 'the page crashed', code: 'failed', position: 4 };
      const { client, polls } = fakeClient(failed);
      const orchestrator = createTemporalRenderOrchestrator({ client, taskQueue: 'renders', localOutcomes: createLocalOutcomes() });
      const waiting = orchestrator.waitForOutcome('req-1', 60_000);
      await vi.advanceTimersByTimeAsync(TEMPORAL_POLL_AFTER_MS - 1);
      expect(polls.started).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      await expect(waiting).resolves.toEqual(failed);
      expect(polls.started).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('ask Temporal at once in a process that runs no workflows', async () => {
    const failed = { status: 'failed', reason: 'the page crashed', code: 'failed', position: 4 };
    const { client, polls } = fakeClient(failed);
    const orchestrator = createTemporalRenderOrchestrator({ client, taskQueue: 'renders' });
    await expect(orchestrator.waitForOutcome('req-1', 5_000)).resolves.toEqual(failed);
    expect(polls.started).toBe(1);
  });

  it('time out as before when neither answers, cancelling the poll it started', async () => {
    const { client, polls } = fakeClient();
    const orchestrator = createTemporalRenderOrchestrator({ client, taskQueue: 'renders', localOutcomes: createLocalOutcomes() });
    await expect(orchestrator.waitForOutcome('req-1', 30)).resolves.toBe('timeout');
    expect(polls.started).toBe(0);
    const remote = createTemporalRenderOrchestrator({ client, taskQueue: 'renders' });
    await expect(remote.waitForOutcome('req-2', 30)).resolves.toBe('timeout');
    expect(polls).toEqual({ started: 1, aborted: 1 });
  });
});
