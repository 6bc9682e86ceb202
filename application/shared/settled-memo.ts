export interface SettledMemo<A extends unknown[], V> {
  (...args: A): Promise<V>;
  /** Drops what is known of these arguments, once nobody will ask for them again soon. */
  forget(...args: A): void;
}

/**
 * Remembers the answers of an async lookup whose answer, once found, never changes: an accepted
 * request (its RenderRequested is the stream's first event and is never rewritten), a template at
 * a pinned revision (later revisions are later events). A render's steps each need the request
 * and the first needs the template, and each read was a database round trip of its own.
 *
 * Bounded, oldest first out; concurrent asks for one key share one lookup; a failed lookup is
 * forgotten at once, so an absent stream read again later finds what was appended since.
 */
export const settledMemo = <A extends unknown[], V>(
  lookup: (...args: A) => Promise<V>,
  { capacity, keyOf }: { readonly capacity: number; readonly keyOf: (...args: A) => string },
): SettledMemo<A, V> => {
  const answers = new Map<string, Promise<V>>();
  const memo = (...args: A): Promise<V> => {
    const key = keyOf(...args);
    const known = answers.get(key);
    if (known) return known;
    const answer = lookup(...args);
    answers.set(key, answer);
    if (answers.size > capacity) answers.delete(answers.keys().next().value as string);
    answer.catch(() => {
      if (answers.get(key) === answer) answers.delete(key);
    });
    return answer;
  };
  return Object.assign(memo, { forget: (...args: A) => void answers.delete(keyOf(...args)) });
};
