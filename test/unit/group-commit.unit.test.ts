import { describe, expect, it } from 'vitest';
import { createGroupCommit, type ItemOutcome } from '../../infrastructure/event-store/group-commit.js';

/** A commit that records its batches and finishes only when the test says so. */
const controllableCommit = () => {
  const batches: string[][] = [];
  const finishers: (() => void)[] = [];
  const commit = (items: readonly string[]) =>
    new Promise<ItemOutcome<string>[]>((resolve) => {
      batches.push([...items]);
      finishers.push(() => resolve(items.map((item) => (item.startsWith('bad') ? { ok: false, error: new Error(item) } : { ok: true, value: `${item}!` }))));
    });
  const finishNext = async () => {
    finishers.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { commit, batches, finishNext };
};

describe('group commit', () => {
  it('commits a lone item at once', async () => {
    const { commit, batches, finishNext } = controllableCommit();
    const group = createGroupCommit(commit, { maxWeight: 10, weightOf: () => 1 });

    const result = group.submit('a');
    expect(batches).toEqual([['a']]);
    await finishNext();
    await expect(result).resolves.toBe('a!');
  });

  it('gathers what arrives during a commit into the next one, in arrival order', async () => {
    const { commit, batches, finishNext } = controllableCommit();
    const group = createGroupCommit(commit, { maxWeight: 10, weightOf: () => 1 });

    const results = ['a', 'b', 'c', 'd'].map((item) => group.submit(item));
    expect(batches).toEqual([['a']]);
    await finishNext();
    expect(batches).toEqual([['a'], ['b', 'c', 'd']]);
    await finishNext();
    await expect(Promise.all(results)).resolves.toEqual(['a!', 'b!', 'c!', 'd!']);
  });

  it('settles each item of a batch on its own', async () => {
    const { commit, finishNext } = controllableCommit();
    const group = createGroupCommit(commit, { maxWeight: 10, weightOf: () => 1 });

    const first = group.submit('first');
    const settling = Promise.allSettled(['x', 'bad-y', 'z'].map((item) => group.submit(item)));
    await finishNext();
    await finishNext();
    await first;
    const settled = await settling;
    expect(settled.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('splits a burst heavier than one commit may carry, never leaving an item behind', async () => {
    const { commit, batches, finishNext } = controllableCommit();
    const group = createGroupCommit(commit, { maxWeight: 5, weightOf: (item) => item.length });

    const results = ['a', 'bb', 'ccc', 'dddddddd', 'e'].map((item) => group.submit(item));
    for (let batch = 0; batch < 4; batch++) await finishNext();
    await Promise.all(results);
    // 'dddddddd' alone outweighs the limit: it still goes, in a commit of its own.
    expect(batches).toEqual([['a'], ['bb', 'ccc'], ['dddddddd'], ['e']]);
  });

  it('fails every item of a batch whose commit throws, and goes on with the next batch', async () => {
    let calls = 0;
    const group = createGroupCommit(
      async (items: readonly string[]) => {
        calls++;
        if (calls === 1) throw new Error('connection lost');
        return items.map((item): ItemOutcome<string> => ({ ok: true, value: item }));
      },
      { maxWeight: 10, weightOf: () => 1 },
    );

    const failed = group.submit('a');
    const later = group.submit('b');
    await expect(failed).rejects.toThrow('connection lost');
    await expect(later).resolves.toBe('b');
  });
});
