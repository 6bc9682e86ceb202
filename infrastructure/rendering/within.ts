export const TIMED_OUT = Symbol('timed out');

/**
 * Settles like work, or with TIMED_OUT after ms; the timer never outlives the work. A hung CDP call
 * never settles at all, so every wait on Chromium that must end goes through this.
 */
export const within = async <T>(work: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> => {
  let timer: NodeJS.Timeout | undefined;
  work.catch(() => {});
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(resolve, ms, TIMED_OUT);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
};
