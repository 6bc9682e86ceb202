import { describe, expect, it } from 'vitest';
import { createFrameSequencer } from '../../infrastructure/video/frame-sequencer.js';

const frame = (index: number) => Buffer.from([index]);

describe('frame sequencer', () => {
  it('writes frames in index order whatever order they are captured in', async () => {
    const written: number[] = [];
    const sequencer = createFrameSequencer({ total: 4, window: 4, write: async (bytes) => void written.push(bytes[0] ?? -1) });
    const claims = [await sequencer.claim(), await sequencer.claim(), await sequencer.claim(), await sequencer.claim()];
    expect(claims).toEqual([0, 1, 2, 3]);
    expect(await sequencer.claim()).toBeNull();
    for (const index of [2, 0, 3, 1]) sequencer.deliver(index, frame(index));
    await sequencer.finished;
    expect(written).toEqual([0, 1, 2, 3]);
  });

  it('holds claims back while a window of frames waits for an earlier one', async () => {
    const sequencer = createFrameSequencer({ total: 10, window: 2, write: async () => {} });
    expect([await sequencer.claim(), await sequencer.claim()]).toEqual([0, 1]);
    let third: number | null | undefined;
    const waiting = sequencer.claim().then((index) => (third = index));
    sequencer.deliver(1, frame(1));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(third).toBeUndefined();
    sequencer.deliver(0, frame(0));
    await waiting;
    expect(third).toBe(2);
  });

  it('waits for the sink before writing the next frame', async () => {
    let release: () => void = () => {};
    const writes: number[] = [];
    const sequencer = createFrameSequencer({
      total: 2,
      window: 2,
      write: (bytes) => {
        writes.push(bytes[0] ?? -1);
        return new Promise<void>((resolve) => (release = resolve));
      },
    });
    await sequencer.claim();
    await sequencer.claim();
    sequencer.deliver(0, frame(0));
    sequencer.deliver(1, frame(1));
    expect(writes).toEqual([0]);
    release();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(writes).toEqual([0, 1]);
    release();
    await sequencer.finished;
  });

  it('rejects waiting claims and the end on failure, and a failing sink fails it', async () => {
    const sequencer = createFrameSequencer({ total: 3, window: 1, write: async () => {} });
    await sequencer.claim();
    const waiting = sequencer.claim();
    sequencer.fail(new Error('page crashed'));
    await expect(waiting).rejects.toThrow('page crashed');
    await expect(sequencer.finished).rejects.toThrow('page crashed');

    const broken = createFrameSequencer({ total: 1, window: 1, write: () => Promise.reject(new Error('ffmpeg died')) });
    await broken.claim();
    broken.deliver(0, frame(0));
    await expect(broken.finished).rejects.toThrow('ffmpeg died');
  });
});
