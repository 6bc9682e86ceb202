import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RenderAheadOutcome } from '../../application/ports/metrics.js';
import { createRendersAhead } from '../../application/renders/produce-render/renders-ahead.js';

const KEEP_MS = 1_000;

const setUp = (capacity = 2) => {
  const ended: RenderAheadOutcome[] = [];
  const ahead = createRendersAhead<string>({ capacity, keepMs: KEEP_MS, ended: (outcome) => ended.push(outcome) });
  return { ahead, ended };
};

afterEach(() => {
  vi.useRealTimers();
});

describe('renders begun ahead of their workflow', () => {
  it('hands a render to the first taker only: a retried step renders afresh', async () => {
    const { ahead, ended } = setUp();
    const render = vi.fn(async () => 'file of r1');
    ahead.begin('r1', render);

    expect(render).toHaveBeenCalledTimes(1);
    await expect(ahead.take('r1')).resolves.toBe('file of r1');
    expect(ahead.take('r1')).toBeUndefined();
    expect(ended).toEqual(['taken']);
  });

  it('begins nothing for a request already begun, or past its capacity', () => {
    const { ahead } = setUp(2);
    const render = vi.fn(async () => 'file');
    ahead.begin('r1', render);
    ahead.begin('r1', render);
    ahead.begin('r2', render);
    ahead.begin('r3', render);

    expect(render).toHaveBeenCalledTimes(2);
    expect(ahead.take('r3')).toBeUndefined();
  });

  it('makes room again once a render is taken', async () => {
    const { ahead } = setUp(1);
    ahead.begin('r1', async () => 'one');
    await ahead.take('r1');
    const render = vi.fn(async () => 'two');
    ahead.begin('r2', render);
    expect(render).toHaveBeenCalledTimes(1);
  });

  it('passes a failed render to its taker, and a failure nobody takes is not an unhandled rejection', async () => {
    const { ahead, ended } = setUp();
    ahead.begin('r1', async () => {
      throw new Error('the page crashed');
    });
    ahead.begin('r2', async () => {
      throw new Error('nobody asks');
    });
    await expect(ahead.take('r1')).rejects.toThrow('the page crashed');
    ahead.drop('r2');
    // Vitest fails the run on an unhandled rejection; give it the turn to notice one.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(ended).toEqual(['taken', 'unused']);
  });

  it('throws away a render its workflow never takes, after the wait or when the request ends without it', () => {
    vi.useFakeTimers();
    const { ahead, ended } = setUp();
    ahead.begin('never taken', async () => 'file');
    ahead.begin('refused', async () => 'file');
    ahead.drop('refused');
    expect(ended).toEqual(['unused']);

    vi.advanceTimersByTime(KEEP_MS - 1);
    expect(ended).toEqual(['unused']);
    vi.advanceTimersByTime(1);
    expect(ended).toEqual(['unused', 'unused']);
    expect(ahead.take('never taken')).toBeUndefined();
    ahead.drop('refused');
    expect(ended).toHaveLength(2);
  });
});
