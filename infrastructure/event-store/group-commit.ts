/**
 * Group commit: whatever is submitted while a commit is in flight waits and goes into the next one
 * together, so N concurrent writers pay for one transaction (one lock, one fsync'd commit) instead
 * of N in a row. A lone writer is committed at once: batching never adds a wait of its own.
 */
export interface GroupCommit<Item, Result> {
  submit(item: Item): Promise<Result>;
}

/** What the commit of a batch says about each of its items, in the batch's order. */
export type ItemOutcome<Result> = { readonly ok: true; readonly value: Result } | { readonly ok: false; readonly error: unknown };

export interface GroupCommitOptions<Item> {
  /** A batch takes items while their total weight stays within this (it always takes at least one). */
  readonly maxWeight: number;
  readonly weightOf: (item: Item) => number;
}

interface Waiting<Item, Result> {
  readonly item: Item;
  resolve(value: Result): void;
  reject(error: unknown): void;
}

/**
 * `commit` settles every item of a batch on its own (one item's conflict must not fail the others);
 * if it throws, every item of that batch fails with its error.
 */
export const createGroupCommit = <Item, Result>(
  commit: (items: readonly Item[]) => Promise<readonly ItemOutcome<Result>[]>,
  { maxWeight, weightOf }: GroupCommitOptions<Item>,
): GroupCommit<Item, Result> => {
  const queue: Waiting<Item, Result>[] = [];
  let committing = false;

  const nextBatch = () => {
    let weight = 0;
    let size = 0;
    for (const waiting of queue) {
      weight += weightOf(waiting.item);
      if (size > 0 && weight > maxWeight) break;
      size++;
    }
    return queue.splice(0, size);
  };

  const drain = async () => {
    committing = true;
    try {
      while (queue.length > 0) {
        const batch = nextBatch();
        try {
          const outcomes = await commit(batch.map((waiting) => waiting.item));
          batch.forEach((waiting, index) => {
            const outcome = outcomes[index];
            if (!outcome) waiting.reject(new Error('group commit: the batch settled fewer items than it was given'));
            else if (outcome.ok) waiting.resolve(outcome.value);
            else waiting.reject(outcome.error);
          });
        } catch (error) {
          for (const waiting of batch) waiting.reject(error);
        }
      }
    } finally {
      committing = false;
    }
  };

  return {
    submit(item) {
      return new Promise<Result>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        if (!committing) void drain();
      });
    },
  };
};
