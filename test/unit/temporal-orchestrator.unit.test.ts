import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import type { StoredFile } from '../../domain/renders/render-events.js';
import { createTemporalRenderOrchestrator } from '../../infrastructure/temporal/temporal-render-orchestrator.js';

const FILE: StoredFile = { storageKey: 'org/req-1/card.png', fileName: 'card.png', contentType: 'image/png', bytes: 120, width: 10, height: 10 };

/** A Temporal client whose result long poll answers `outcome`, or only ends when it is aborted. */
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

describe("a caller waiting for a request's outcome", () => {
  it("hears the workflow's result, a file", async () => {
    const { client, polls } = fakeClient({ status: 'done', file: FILE, position: 9 });
    const orchestrator = createTemporalRenderOrchestrator({ client, taskQueue: 'renders' });
    await expect(orchestrator.waitForOutcome('req-1', 5_000)).resolves.toEqual({ status: 'done', file: FILE, position: 9 });
    expect(polls.started).toBe(1);
  });

  it('hears a failure whole, in the current taxonomy: its code and Retry-After', async () => {
    const failed = { status: 'failed', reason: 'the pool is full', code: 'unavailable', retryAfterSeconds: 3, position: 4 } as const;
    const { client } = fakeClient(failed);
    const orchestrator = createTemporalRenderOrchestrator({ client, taskQueue: 'renders' });
    await expect(orchestrator.waitForOutcome('req-1', 5_000)).resolves.toEqual(failed);
    // A worker released before the taxonomy named the request's own fault "rejected".
    const earlier = createTemporalRenderOrchestrator({ client: fakeClient({ status: 'failed', reason: 'bad', code: 'rejected', position: 5 }).client, taskQueue: 'renders' });
    await expect(earlier.waitForOutcome('req-2', 5_000)).resolves.toMatchObject({ code: 'validation' });
  });

  it('times out when the workflow does not end in time, and cancels its poll', async () => {
    const { client, polls } = fakeClient();
    const orchestrator = createTemporalRenderOrchestrator({ client, taskQueue: 'renders' });
    await expect(orchestrator.waitForOutcome('req-1', 30)).resolves.toBe('timeout');
    expect(polls).toEqual({ started: 1, aborted: 1 });
  });
});
