/**
 * Hands out frame indexes to capturing pages and passes the captured frames on in index order.
 * Pages claim the next index whenever they are free, so a slow page never holds the others back;
 * a claim waits while `window` frames are captured but not yet written, which bounds the frames
 * held in memory whatever the speed of the pages or of the sink.
 */
export interface FrameSequencer {
  /** The next frame to capture, or null once every frame has been claimed. Rejects after a failure. */
  claim(): Promise<number | null>;
  /** A captured frame; frames reach the sink in index order. */
  deliver(index: number, frame: Buffer): void;
  /** Stops everything: waiting claims and `finished` reject with this error. */
  fail(error: unknown): void;
  /** Resolves once every frame was written to the sink. */
  readonly finished: Promise<void>;
}

export interface FrameSequencerOptions {
  readonly total: number;
  readonly window: number;
  /** Resolves when the sink can take the next frame (backpressure). */
  readonly write: (frame: Buffer) => Promise<void>;
}

export const createFrameSequencer = ({ total, window, write }: FrameSequencerOptions): FrameSequencer => {
  const ready = new Map<number, Buffer>();
  const claimWaiters: (() => void)[] = [];
  let nextClaim = 0;
  let written = 0;
  let writing = false;
  let failure: { error: unknown } | null = null;
  let resolveFinished: () => void = () => {};
  let rejectFinished: (error: unknown) => void = () => {};
  const finished = new Promise<void>((resolve, reject) => {
    resolveFinished = resolve;
    rejectFinished = reject;
  });
  // A failure may come before anyone awaits `finished`; it is still reported to whoever does.
  finished.catch(() => {});

  const wakeClaims = () => {
    for (const wake of claimWaiters.splice(0)) wake();
  };

  const fail = (error: unknown) => {
    if (failure) return;
    failure = { error };
    ready.clear();
    wakeClaims();
    rejectFinished(error);
  };

  const flush = async () => {
    if (writing) return;
    writing = true;
    try {
      for (let frame = ready.get(written); frame !== undefined && !failure; frame = ready.get(written)) {
        ready.delete(written);
        await write(frame);
        written++;
        wakeClaims();
      }
      if (written === total && !failure) resolveFinished();
    } catch (error) {
      fail(error);
    } finally {
      writing = false;
    }
  };

  return {
    async claim() {
      while (!failure && nextClaim < total && nextClaim >= written + window) {
        await new Promise<void>((resolve) => claimWaiters.push(resolve));
      }
      if (failure) throw failure.error;
      return nextClaim < total ? nextClaim++ : null;
    },
    deliver(index, frame) {
      if (failure) return;
      ready.set(index, frame);
      void flush();
    },
    fail,
    finished,
  };
};
