import puppeteer, { type Browser, type BrowserContext, type CDPSession, type Page } from 'puppeteer-core';
import type { Logger } from 'pino';
import { validationError } from '../../domain/shared/errors.js';
import { BrowserCrashedError, RenderDeadlineError } from './pool-errors.js';
import { TIMED_OUT, within } from './within.js';
import { createTripwire, type Tripwire } from './tripwire.js';

/**
 * One Chromium process and its warm pages. A page lives in a browser context of its own, bound to
 * one organization for its whole life: it is reused for that organization's later renders (its
 * renderer process stays up, which is most of what a render costs when started cold) and never
 * handed to another. The slot also enforces each render's deadline, whatever state Chromium is in.
 */

export interface BrowserSlotOptions {
  readonly id: number;
  readonly executablePath: string;
  readonly args: readonly string[];
  /** Warm pages kept per browser, busy and idle together; the least recently used idle one goes first. */
  readonly maxPages: number;
  /** A page is replaced after this many renders, which bounds what a long-lived document can accumulate. */
  readonly maxUsesPerPage: number;
  /** Per-page setup every render needs (network guard, dialogs, popups), done once per page. */
  readonly preparePage?: (page: Page, tenant: string) => Promise<void>;
  /**
   * Readies a page for its next render once a render is done with it, stopping whatever the last
   * document still runs (timers, animation frames); about:blank when not given.
   */
  readonly resetPage?: (page: Page, cdp: CDPSession) => Promise<unknown>;
  /**
   * Pages draw only when asked (HeadlessExperimental.beginFrame), for video frames: Chromium must
   * be chrome-headless-shell launched with BEGIN_FRAME_ARGS.
   */
  readonly framesOnDemand?: boolean;
  /** Called once when Chromium dies or is killed; the pool replaces the slot. */
  readonly onCrash: (slot: BrowserSlot) => void;
  readonly logger: Logger;
}

export interface RunOptions {
  /** The organization the render is for: its pages are its own. */
  readonly tenant: string;
  /** Hard bound on the render once it has its page; past it the render fails and its page is torn down. */
  readonly deadlineMs: number;
  /**
   * Called once the page is back in the idle set or gone, which may be after the render answered:
   * tidying the page is not the caller's wait, but the render's slot stays taken until then.
   */
  readonly onSettled?: () => void;
  /**
   * What the render does with its page (a capture of a web page, say): an idle page of the tenant's
   * last used for the same is preferred, so consecutive runs of one kind find the page as they left it.
   */
  readonly affinity?: string;
  /** Readies the page for its next render instead of the slot's resetPage (a capture parks its page its own way). */
  readonly reset?: (page: Page, cdp: CDPSession) => Promise<unknown>;
  /** Undoes what `reset` left that no other render expects (a frozen page), before the page's next render, whichever it is. */
  readonly wake?: (page: Page, cdp: CDPSession) => Promise<unknown>;
}

/** The render's view of its page: the puppeteer page, and a CDP session for single-round-trip calls. */
export interface RenderPage {
  readonly page: Page;
  readonly cdp: CDPSession;
}

export interface BrowserSlot {
  readonly id: number;
  readonly pid: number | undefined;
  /** Renders this browser has started. */
  readonly renders: number;
  readonly busy: number;
  /** True once Chromium died or was killed. */
  readonly crashed: boolean;
  /** An idle warm page for this tenant is ready, so a render would not pay for a new one. */
  hasIdlePageFor(tenant: string): boolean;
  run<T>(fn: (target: RenderPage) => Promise<T>, options: RunOptions): Promise<T>;
  /** Settles once no render runs on this browser. */
  idle(): Promise<void>;
  /** Closes Chromium, killing it when it does not close in time. */
  close(): Promise<void>;
}

interface Lane {
  readonly tenant: string;
  readonly context: BrowserContext;
  readonly page: Page;
  readonly cdp: CDPSession;
  /** Trips when the page's renderer crashes (out of memory, say). */
  readonly crashed: Tripwire;
  uses: number;
  lastUsed: number;
  /** The affinity of the render that used it last. */
  affinity: string | undefined;
  /** Set by the last render's own reset: run before the next render. */
  wake: RunOptions['wake'];
}

/** Long enough for a healthy Chromium, short enough that a wedged one frees its slot within seconds. */
const TEARDOWN_TIMEOUT_MS = 3_000;
const BROWSER_CLOSE_TIMEOUT_MS = 5_000;
/** A page not reset within this is busy with something of its own, and is discarded. */
const RESET_TIMEOUT_MS = 2_000;

/*
 * Puppeteer cannot ask for a page under begin-frame control, so the target is created over a CDP
 * session with the browser itself (kept for the browser's life: detaching it would make puppeteer
 * forget the browser target); the context holds no other page, so its one page target is this one.
 */
const newFrameOnDemandPage = async (browserSession: CDPSession, context: BrowserContext): Promise<Page> => {
  await browserSession.send('Target.createTarget', { url: 'about:blank', browserContextId: context.id, enableBeginFrameControl: true });
  const page = await (await context.waitForTarget((target) => target.type() === 'page', { timeout: TEARDOWN_TIMEOUT_MS })).page();
  if (!page) throw new Error('Chromium opened no page for the frame-on-demand target');
  return page;
};

export const launchBrowserSlot = async (options: BrowserSlotOptions): Promise<BrowserSlot> => {
  const { id, logger } = options;
  const browser: Browser = await puppeteer.launch({
    executablePath: options.executablePath,
    headless: options.framesOnDemand ? 'shell' : true,
    // Over a pipe Chromium exits when this process dies, however it dies.
    pipe: true,
    args: [...options.args],
    // The pool owns shutdown; puppeteer's own signal handlers would exit the process under it.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
  const pid = browser.process()?.pid;
  const browserSession = options.framesOnDemand ? await browser.target().createCDPSession() : undefined;
  const idleLanes: Lane[] = [];
  /** Pages being reset after a render: each promise settles once its page is idle again (or gone). */
  const settling = new Map<Lane, Promise<void>>();
  let lanes = 0;
  let busy = 0;
  let renders = 0;
  let crashed = false;
  let closing = false;
  const idleWaiters: (() => void)[] = [];
  const crash = createTripwire();

  const kill = (why: string) => {
    if (crashed) return;
    logger.error({ browser: id, pid }, `${why}; killing Chromium`);
    browser.process()?.kill('SIGKILL');
  };

  browser.once('disconnected', () => {
    if (closing) return;
    crashed = true;
    logger.error({ browser: id, pid, busy }, 'Chromium disconnected unexpectedly; replacing it');
    crash.trip(new BrowserCrashedError(`Chromium (pid ${pid ?? 'unknown'}) crashed during the render; retry it`));
    browser.process()?.kill('SIGKILL');
    options.onCrash(slot);
  });

  const newLane = async (tenant: string): Promise<Lane> => {
    logger.debug({ browser: id, tenant, lanes }, 'opening a page');
    const context = await browser.createBrowserContext();
    try {
      const page = browserSession ? await newFrameOnDemandPage(browserSession, context) : await context.newPage();
      const cdp = await page.createCDPSession();
      await options.preparePage?.(page, tenant);
      const crashed = createTripwire();
      page.once('error', (error) => crashed.trip(validationError(`The page crashed while rendering (${error.message}); it may use too much memory`)));
      return { tenant, context, page, cdp, crashed, uses: 0, lastUsed: 0, affinity: undefined, wake: undefined };
    } catch (error) {
      await within(context.close(), TEARDOWN_TIMEOUT_MS).catch(() => {});
      throw error;
    }
  };

  /** Closes a page's context; a browser that cannot even do that is wedged, and is killed. */
  const discard = async (lane: Lane): Promise<void> => {
    logger.debug({ browser: id, tenant: lane.tenant, uses: lane.uses }, 'closing a page');
    lanes--;
    if (crashed) return;
    const closed = await within(lane.context.close(), TEARDOWN_TIMEOUT_MS).catch(() => undefined);
    if (closed === TIMED_OUT) kill('Chromium did not close a page in time');
  };

  /** Keeps the warm pages within maxPages, dropping the least recently used idle ones. */
  const makeRoom = async () => {
    while (lanes >= options.maxPages && idleLanes.length > 0) {
      idleLanes.sort((a, b) => a.lastUsed - b.lastUsed);
      const oldest = idleLanes.shift() as Lane;
      await discard(oldest);
    }
  };

  const takeLane = async (tenant: string, affinity: string | undefined): Promise<Lane> => {
    for (;;) {
      const alike = idleLanes.findLastIndex((lane) => lane.tenant === tenant && lane.affinity === affinity);
      const index = alike >= 0 ? alike : idleLanes.findLastIndex((lane) => lane.tenant === tenant);
      if (index >= 0) return idleLanes.splice(index, 1)[0] as Lane;
      // A page of this tenant's about to be free costs a short wait; a new one, a new renderer process.
      const soon = [...settling].filter(([lane]) => lane.tenant === tenant).map(([, settled]) => settled);
      if (soon.length === 0) break;
      await Promise.race(soon);
    }
    await makeRoom();
    lanes++;
    try {
      return await newLane(tenant);
    } catch (error) {
      lanes--;
      throw error;
    }
  };

  /** A page goes back to the idle set only when it is healthy and blank; otherwise it is discarded. */
  const giveBack = (lane: Lane, reusable: boolean, runOptions: RunOptions): Promise<void> => {
    const settled = settle(lane, reusable, runOptions).finally(() => settling.delete(lane));
    settling.set(lane, settled.catch(() => {}));
    return settled;
  };

  const settle = async (lane: Lane, reusable: boolean, runOptions: RunOptions) => {
    lane.uses++;
    lane.lastUsed = performance.now();
    if (!reusable || closing || crashed || lane.uses >= options.maxUsesPerPage) return discard(lane);
    const resetPage = runOptions.reset ?? options.resetPage;
    const reset = resetPage ? resetPage(lane.page, lane.cdp) : lane.page.goto('about:blank');
    if ((await within(reset, RESET_TIMEOUT_MS).catch(() => TIMED_OUT)) === TIMED_OUT) return discard(lane);
    lane.wake = runOptions.reset ? runOptions.wake : undefined;
    idleLanes.push(lane);
  };

  /**
   * Past the deadline the page's script is interrupted (that works even while it spins in a loop)
   * and its context closed; giveBack kills the whole browser if even that hangs.
   */
  const interrupt = async (lane: Lane) => {
    await within(lane.cdp.send('Runtime.terminateExecution'), TEARDOWN_TIMEOUT_MS).catch(() => undefined);
  };

  /** Frames on demand: the render before this one on this browser, which must end first. */
  let previousRun: Promise<unknown> = Promise.resolve();

  const run = async <T>(fn: (target: RenderPage) => Promise<T>, runOptions: RunOptions): Promise<T> => {
    if (crashed || closing) throw new BrowserCrashedError(`Chromium (pid ${pid ?? 'unknown'}) is gone; retry the render`);
    busy++;
    renders++;
    let lane: Lane | undefined;
    let reusable = false;
    // Two pages' frames in flight at once kill this browser's GPU process; the pool gives each
    // browser one render at a time, and this holds even when a browser it waits for is still starting.
    const before = previousRun;
    let finished: () => void = () => {};
    if (options.framesOnDemand) previousRun = new Promise<void>((resolve) => (finished = resolve));
    try {
      await crash.guard(before);
      lane = await crash.guard(takeLane(runOptions.tenant, runOptions.affinity));
      lane.affinity = runOptions.affinity;
      const { wake } = lane;
      lane.wake = undefined;
      // A page that cannot be woken is not handed out: the render fails, retried elsewhere, and the page is discarded.
      if (wake && (await within(wake(lane.page, lane.cdp), RESET_TIMEOUT_MS)) === TIMED_OUT) throw new Error('a parked page did not wake in time');
      const work = fn({ page: lane.page, cdp: lane.cdp });
      const outcome = await within(crash.guard(lane.crashed.guard(work)), runOptions.deadlineMs);
      if (outcome === TIMED_OUT) {
        await interrupt(lane);
        throw new RenderDeadlineError(runOptions.deadlineMs);
      }
      reusable = true;
      return outcome;
    } catch (error) {
      if (crashed && !(error instanceof BrowserCrashedError)) {
        throw new BrowserCrashedError(`Chromium (pid ${pid ?? 'unknown'}) crashed during the render; retry it`, { cause: error });
      }
      throw error;
    } finally {
      finished();
      const finishing = lane ? giveBack(lane, reusable, runOptions) : Promise.resolve();
      void finishing
        .catch((error: unknown) => logger.warn({ err: error, browser: id }, 'could not tidy a page after a render'))
        .finally(() => {
          busy--;
          if (busy === 0) for (const resolve of idleWaiters.splice(0)) resolve();
          runOptions.onSettled?.();
        });
    }
  };

  const slot: BrowserSlot = {
    id,
    pid,
    get renders() {
      return renders;
    },
    get busy() {
      return busy;
    },
    get crashed() {
      return crashed;
    },
    hasIdlePageFor: (tenant) => idleLanes.some((lane) => lane.tenant === tenant),
    run,
    idle: () => (busy === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
    async close() {
      if (closing) return;
      closing = true;
      const closed = await within(browser.close(), BROWSER_CLOSE_TIMEOUT_MS).catch(() => TIMED_OUT);
      if (closed === TIMED_OUT) browser.process()?.kill('SIGKILL');
      logger.info({ browser: id, pid, renders }, 'Chromium closed');
    },
  };
  logger.info({ browser: id, pid }, 'Chromium started');
  return slot;
};
