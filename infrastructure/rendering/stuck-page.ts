import type { CDPSession } from 'puppeteer-core';
import { validationError } from '../../domain/shared/errors.js';
import { TIMED_OUT, within } from './within.js';

/*
 * A template whose scripts never yield holds its page until the render's deadline unless someone
 * notices; the page cannot even evaluate `1` then, since its scripts and the host share one thread.
 * So while a render runs the page is asked to, and two asks in a row left unanswered make it stuck:
 * about 3 s after the render began at the earliest. A page that works hard but yields now and then
 * (2 s of layout, a heavy chart) answers one of them and renders.
 */

/** When the first ask goes out, and how long the page waits between asks it answered. */
const QUIET_MS = 800;
/** How long one ask may go unanswered. */
const ASK_WITHIN_MS = 1_100;
const MISSES_TO_STUCK = 2;
/** How late this process's own timer may fire before the machine counts as starved of CPU. */
const STARVED_LATENESS_MS = 150;

/** Roughly how long a page that never yields holds a render: the first ask, then two unanswered ones. */
export const STUCK_DETECTED_WITHIN_MS = QUIET_MS + MISSES_TO_STUCK * ASK_WITHIN_MS;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const stuck = () =>
  validationError(`The template's scripts kept the page busy without a pause for ${Math.round(STUCK_DETECTED_WITHIN_MS / 100) / 10} s; it cannot be rendered`);

/**
 * Runs the render, failing it as soon as the page stops answering; the page's script is then
 * interrupted, so the pool can discard the page at once.
 */
export const failFastWhenStuck = async <T>(cdp: CDPSession, render: () => Promise<T>): Promise<T> => {
  let finished = false;
  let terminated = false;
  const watch = async (): Promise<never> => {
    let misses = 0;
    await sleep(QUIET_MS);
    while (!finished) {
      const askedAt = performance.now();
      const asked = await within(cdp.send('Runtime.evaluate', { expression: '1' }), ASK_WITHIN_MS).catch(() => 'gone' as const);
      if (finished) break;
      // A machine starved of CPU delays this process's own timer too: an ask unanswered then tells
      // nothing about the page, so it counts neither way, and a busy machine fails no slow page.
      const starved = performance.now() - askedAt > ASK_WITHIN_MS + STARVED_LATENESS_MS;
      // An ask that failed outright (the page navigated, its context went) is an answer of sorts.
      if (asked !== TIMED_OUT) misses = 0;
      else if (!starved) misses += 1;
      if (misses >= MISSES_TO_STUCK) {
        terminated = true;
        await within(cdp.send('Runtime.terminateExecution'), ASK_WITHIN_MS).catch(() => undefined);
        throw stuck();
      }
      if (misses === 0) await sleep(QUIET_MS);
    }
    return new Promise<never>(() => {});
  };
  const watching = watch();
  // Once the render has settled the watch stops quietly; nothing may reject unobserved meanwhile.
  watching.catch(() => {});
  try {
    return await Promise.race([render(), watching]);
  } catch (error) {
    // Terminating the page's script also fails whatever call of the render's it ran in (a template's
    // inline scripts run inside the call that writes its document): the page's being stuck is why.
    if (terminated) throw stuck();
    throw error;
  } finally {
    finished = true;
  }
};
