import { describe, expect, it, vi } from 'vitest';
import { createRenderSteps } from '../../application/renders/render-steps.js';
import { settledMemo } from '../../application/shared/settled-memo.js';
import { renderStream } from '../../domain/renders/render-events.js';
import { templateStream } from '../../domain/templates/template-events.js';
import { contextOf, createWorld } from '../support/application-world.js';
import { mustacheMerger } from '../../infrastructure/templates/mustache-merger.js';

describe('a settled memo', () => {
  it('looks each key up once, sharing the lookup with asks made while it runs', async () => {
    const lookup = vi.fn(async (id: string) => ({ id }));
    const memo = settledMemo(lookup, { capacity: 4, keyOf: (id) => id });
    const [first, second] = await Promise.all([memo('a'), memo('a')]);
    expect(await memo('a')).toBe(first);
    expect(second).toBe(first);
    expect(lookup).toHaveBeenCalledTimes(1);
  });

  it('forgets a failed lookup at once, so the next ask reads again', async () => {
    let absent = true;
    const lookup = vi.fn(async (id: string) => {
      if (absent) throw new Error(`${id} not found`);
      return id;
    });
    const memo = settledMemo(lookup, { capacity: 4, keyOf: (id) => id });
    await expect(memo('a')).rejects.toThrow('a not found');
    absent = false;
    await expect(memo('a')).resolves.toBe('a');
    expect(lookup).toHaveBeenCalledTimes(2);
  });

  it('keeps at most its capacity, the oldest going first, and drops what it is told to forget', async () => {
    const lookup = vi.fn(async (id: string, revision: number) => `${id}@${revision}`);
    const memo = settledMemo(lookup, { capacity: 2, keyOf: (id, revision) => `${id}@${revision}` });
    await memo('a', 1);
    await memo('b', 1);
    await memo('c', 1);
    expect(lookup).toHaveBeenCalledTimes(3);
    await memo('b', 1);
    await memo('c', 1);
    expect(lookup).toHaveBeenCalledTimes(3);
    await memo('a', 1);
    expect(lookup).toHaveBeenCalledTimes(4);
    memo.forget('a', 1);
    await memo('a', 1);
    expect(lookup).toHaveBeenCalledTimes(5);
    await memo('a', 2);
    expect(lookup).toHaveBeenCalledTimes(6);
  });
});

describe('render steps', () => {
  const setUp = async () => {
    const world = createWorld();
    await world.given.account();
    const templateId = await world.given.htmlTemplate();
    const reads: string[] = [];
    const readStream = world.eventStore.readStream.bind(world.eventStore);
    const steps = createRenderSteps({
      eventStore: { ...world.eventStore, readStream: (stream, options) => (reads.push(stream), readStream(stream, options)) },
      clock: world.clock,
      ids: world.ids,
      storage: world.storage,
      engine: world.engine,
      merger: mustacheMerger,
      canvas: { toHtml: async () => '' },
      metrics: world.metrics,
      assets: world.readModels.assets,
    });
    // Accepted, not run: the steps below are the worker's.
    const accept = async () => {
      const service = world.renderService({ orchestrator: { ...world.orchestrator, start: async () => {}, waitForOutcome: async () => 'timeout' } as never, syncTimeoutMs: 1 });
      const answer = await service.render(contextOf(), { template: templateId, data: { title: 'Hello' }, cache: false }).catch((error: unknown) => error);
      const requested = (await world.log()).filter((event) => event.type === 'RenderRequested').at(-1);
      if (!requested) throw new Error(`nothing was accepted: ${String(answer)}`);
      return (requested.data as { requestId: string }).requestId;
    };
        /** The outcomes recorded in the log, in order: request id and event type. */
    const recorded = async () =>
      (await world.log())
        .filter((event) => event.type === 'RenderCompleted' || event.type === 'RenderFailed')
        .map((event) => [(event.data as { requestId: string }).requestId, event.type]);
    return { world, templateId, steps, reads, recorded, accept };
  };

  it("read a request's stream once, for its request and its outcome (decided against the stream as read), and a pinned template once for all its renders", async () => {
    const { templateId, steps, reads, recorded, accept } = await setUp();
    const first = await accept();
    const second = await accept();
    for (const requestId of [first, second]) {
      await steps.charge(requestId);
      const file = await steps.produce(requestId);
      await steps.complete(requestId, file);
    }
    expect(reads.filter((stream) => stream === renderStream(first))).toHaveLength(1);
    expect(reads.filter((stream) => stream === renderStream(second))).toHaveLength(1);
    expect(reads.filter((stream) => stream === templateStream(templateId))).toHaveLength(1);
    expect(await recorded()).toEqual([
      [first, 'RenderCompleted'],
      [second, 'RenderCompleted'],
    ]);
  });

  it('record a failure once, and return its log position each time it is asked', async () => {
    const { steps, recorded, accept } = await setUp();
    const requestId = await accept();
    const position = await steps.fail(requestId, { status: 'failed', reason: 'no room', code: 'unavailable', retryAfterSeconds: 7 });
    const again = await steps.fail(requestId, { status: 'failed', reason: 'again', code: 'failed' });
    expect(await recorded()).toEqual([[requestId, 'RenderFailed']]);
    expect(position).toEqual(expect.any(Number));
    expect(again).toBe(position);
  });
});
