import { describe, expect, it, vi } from 'vitest';
import { createUuidV7Ids } from '../../infrastructure/system/clock-and-ids.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuidv7 ids', () => {
  it('are version 7 uuids, all different, in the order they were made, within one millisecond and across a draw of random bytes', () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-27T08:00:00Z'), toFake: ['Date'] });
    try {
      const ids = createUuidV7Ids();
      // 600 ids in one millisecond: more than one draw of the pool's 256.
      const made = Array.from({ length: 600 }, () => ids.next());
      vi.setSystemTime(Date.parse('2026-11-27T08:00:00.001Z'));
      made.push(...Array.from({ length: 10 }, () => ids.next()));
      for (const id of made) expect(id).toMatch(UUID_V7);
      expect(new Set(made).size).toBe(made.length);
      expect([...made].sort()).toEqual(made);
      // The time is the millisecond the id was made in.
      expect(parseInt(made[0]!.replaceAll('-', '').slice(0, 12), 16)).toBe(Date.parse('2026-11-27T08:00:00Z'));
      expect(parseInt(made.at(-1)!.replaceAll('-', '').slice(0, 12), 16)).toBe(Date.parse('2026-11-27T08:00:00.001Z'));
    } finally {
      vi.useRealTimers();
    }
  });

  it('draw their random part afresh: two generators do not make the same ids', () => {
    const first = createUuidV7Ids();
    const second = createUuidV7Ids();
    const ids = new Set(Array.from({ length: 300 }, () => [first.next(), second.next()]).flat());
    expect(ids.size).toBe(600);
  });
});
