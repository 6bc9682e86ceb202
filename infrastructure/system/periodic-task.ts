export interface PeriodicTask {
  /** Stops the timer; resolves once a pass in progress has ended. */
  stop(): Promise<void>;
}

/**
 * Runs `task` every `intervalMs`, never two passes at once (a slow pass delays the next rather than
 * overlapping it). A failed pass is reported and the next one runs as usual. The timer does not keep
 * the process alive.
 */
export const runPeriodically = (task: () => Promise<void>, intervalMs: number, onError: (error: unknown) => void): PeriodicTask => {
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = task()
      .catch(onError)
      .finally(() => {
        running = null;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
};
