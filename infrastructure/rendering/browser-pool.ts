import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import type { Logger } from 'pino';
import { BrowserCrashedError, PoolUnavailableError } from './pool-errors.js';

export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

export interface BrowserPoolOptions {
  executablePath?: string;
  /** Chromium processes kept running. */
  browsers?: number;
  /** Renders at once per browser; browsers * pagesPerBrowser bounds the pool. */
  pagesPerBrowser?: number;
  /** Renders allowed to wait for a page; one more is refused at once. */
  maxQueue?: number;
  /** How long a queued render waits for a page before it is refused. */
  renderQueueTimeoutMs?: number;
  /** A browser is replaced after this many renders, which bounds what leaks in Chromium can grow to. */
  restartAfterRenders?: number;
  /** Fresh contexts with a blank page prepared ahead per browser, so a render does not wait for one. */
  sparePages?: number;
  /** Graceful close waits this long for renders in flight before killing the browsers. */
  closeTimeoutMs?: number;
  extraArgs?: readonly string[];
  /**
   * Runs on every fresh page before a render gets it, for spare pages ahead of time: per-page setup
   * every render needs (the network guard, say) then costs renders nothing.
   */
  preparePage?: (page: Page) => Promise<void>;
  logger: Logger;
}

export interface WithPageOptions {
  /** Aborts the wait for a page; a render already running is the callback's to stop. */
  signal?: AbortSignal;
  /** Overrides renderQueueTimeoutMs for this call. */
  queueTimeoutMs?: number;
  /**
   * Bounds fn once it has its page. On expiry the call rejects and the context is closed, which
   * stops whatever the page was still doing, so a hanging page cannot keep its slot.
   */
  timeoutMs?: number;
}

export interface BrowserPoolStats {
  browsers: number;
  launching: number;
  inFlight: number;
  queued: number;
  capacity: number;
  maxQueue: number;
  sparePages: number;
  rendersTotal: number;
  restarts: number;
  crashes: number;
  rejected: number;
}

export interface BrowserPool {
  /** Starts the browsers and their spare pages, so the first renders do not pay for it. */
  warmUp(): Promise<void>;
  /**
   * Runs fn on a page of a fresh incognito context, which is closed afterwards whatever happens.
   * Rejects with PoolUnavailableError when the queue is full or no page frees up in time, and with
   * BrowserCrashedError when the browser dies during the render.
   */
  withPage<T>(fn: (page: Page) => Promise<T>, options?: WithPageOptions): Promise<T>;
  stats(): BrowserPoolStats;
  close(): Promise<void>;
}

/*
 * Background throttling would stretch timers and animation frames of pages Chromium considers
 * hidden, which every headless page is: renders would wait for nothing and video frames would
 * drift. The network flags keep Chromium from calling home, and QUIC is off because it bypasses
 * nothing we block but adds UDP sockets to reason about.
 */
const BASE_ARGS = [
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--font-render-hinting=none',
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  '--disable-renderer-backgrounding',
  // WebRTC opens UDP sockets that request interception never sees; without a proxy this forbids them.
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
];

const CONTEXT_CLOSE_TIMEOUT_MS = 5_000;
const BROWSER_CLOSE_TIMEOUT_MS = 5_000;

interface Lane {
  context: BrowserContext;
  page: Page;
}

interface BrowserEntry {
  id: number;
  browser: Browser;
  pid: number | undefined;
  /** retiring: replacement on its way, still serving; draining: no new work, closes when idle. */
  state: 'ready' | 'retiring' | 'draining' | 'closed';
  inFlight: number;
  renders: number;
  spares: Promise<Lane>[];
  refilling: boolean;
  crashed: boolean;
  /** Rejects when the browser dies unexpectedly, so renders on it stop waiting at once. */
  crash: Promise<never>;
}

interface Waiter {
  resolve: (entry: BrowserEntry) => void;
  reject: (error: unknown) => void;
  cleanup: () => void;
}

export function createBrowserPool(options: BrowserPoolOptions): BrowserPool {
  const { logger } = options;
  const executablePath = options.executablePath ?? DEFAULT_CHROMIUM_PATH;
  const browsers = positive(options.browsers ?? 1, 'browsers');
  const pagesPerBrowser = positive(options.pagesPerBrowser ?? 4, 'pagesPerBrowser');
  const maxQueue = Math.max(0, options.maxQueue ?? 32);
  const queueTimeoutMs = options.renderQueueTimeoutMs ?? 30_000;
  const restartAfterRenders = positive(options.restartAfterRenders ?? 200, 'restartAfterRenders');
  const sparePages = Math.max(0, options.sparePages ?? Math.min(2, pagesPerBrowser));
  const closeTimeoutMs = options.closeTimeoutMs ?? 10_000;
  const capacity = browsers * pagesPerBrowser;
  const args = [
    ...BASE_ARGS,
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
    ...(options.extraArgs ?? []),
  ];

  const entries: BrowserEntry[] = [];
  const queue: Waiter[] = [];
  const launches = new Set<Promise<void>>();
  const closings = new Set<Promise<void>>();
  const idleWaiters: (() => void)[] = [];
  let nextId = 1;
  let inFlight = 0;
  let closed = false;
  let lastLaunchError: unknown;
  const counters = { rendersTotal: 0, restarts: 0, crashes: 0, rejected: 0 };
  // Seeds the Retry-After estimate until real renders have been timed.
  let averageRenderMs = 1_000;

  const retryAfterSeconds = () =>
    Math.max(1, Math.ceil((((queue.length + inFlight) / capacity) * averageRenderMs) / 1_000));

  const serving = () => entries.filter((entry) => entry.state === 'ready' || entry.state === 'retiring');

  function ensureBrowsers(): void {
    if (closed) return;
    const wanted = browsers - entries.filter((entry) => entry.state === 'ready').length - launches.size;
    for (let i = 0; i < wanted; i++) launch();
  }

  function launch(): void {
    const launching = launchBrowser().then(
      (entry) => {
        if (closed) {
          void closeEntry(entry);
          return;
        }
        entries.push(entry);
        const retiring = entries.find((candidate) => candidate.state === 'retiring');
        if (retiring) drain(retiring);
        refill(entry);
        dispatch();
      },
      (error: unknown) => {
        lastLaunchError = error;
        logger.error({ err: error, executablePath }, 'could not start Chromium');
        const retiring = entries.find((candidate) => candidate.state === 'retiring');
        if (retiring) {
          // Better an old browser than none: try again after another full round of renders.
          retiring.state = 'ready';
          retiring.renders = 0;
          return;
        }
        if (serving().length === 0 && launches.size <= 1) {
          failWaiters(new PoolUnavailableError(`could not start Chromium: ${(error as Error).message}`, 5, { cause: error }));
        }
      },
    );
    launches.add(launching);
    void launching.finally(() => launches.delete(launching));
  }

  async function launchBrowser(): Promise<BrowserEntry> {
    const id = nextId++;
    const browser = await puppeteer.launch({
      executablePath,
      headless: true,
      // Over a pipe Chromium exits when this process dies, however it dies.
      pipe: true,
      args,
      // The pool owns shutdown; puppeteer's own signal handlers would exit the process under it.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    let markCrashed: (error: Error) => void = () => {};
    const crash = new Promise<never>((_, reject) => {
      markCrashed = reject;
    });
    crash.catch(() => {});
    const entry: BrowserEntry = {
      id,
      browser,
      pid: browser.process()?.pid,
      state: 'ready',
      inFlight: 0,
      renders: 0,
      spares: [],
      refilling: false,
      crashed: false,
      crash,
    };
    browser.once('disconnected', () => {
      if (entry.state === 'closed') return;
      entry.state = 'closed';
      entry.crashed = true;
      counters.crashes++;
      remove(entry);
      logger.error({ browser: id, pid: entry.pid, inFlight: entry.inFlight }, 'Chromium disconnected unexpectedly; replacing it');
      markCrashed(new BrowserCrashedError(`Chromium (pid ${entry.pid ?? 'unknown'}) crashed during the render; retry it`));
      browser.process()?.kill('SIGKILL');
      ensureBrowsers();
      dispatch();
    });
    logger.info({ browser: id, pid: entry.pid }, 'Chromium started');
    return entry;
  }

  function drain(entry: BrowserEntry): void {
    entry.state = 'draining';
    if (entry.inFlight === 0) void closeEntry(entry);
  }

  function closeEntry(entry: BrowserEntry): Promise<void> {
    entry.state = 'closed';
    remove(entry);
    const closing = (async () => {
      const outcome = await within(entry.browser.close(), BROWSER_CLOSE_TIMEOUT_MS).catch(() => TIMED_OUT);
      if (outcome === TIMED_OUT) entry.browser.process()?.kill('SIGKILL');
      logger.info({ browser: entry.id, pid: entry.pid, renders: entry.renders }, 'Chromium closed');
    })();
    closings.add(closing);
    void closing.finally(() => closings.delete(closing));
    return closing;
  }

  function remove(entry: BrowserEntry): void {
    const index = entries.indexOf(entry);
    if (index >= 0) entries.splice(index, 1);
  }

  function newLane(entry: BrowserEntry): Promise<Lane> {
    const lane = (async () => {
      const context = await entry.browser.createBrowserContext();
      try {
        const page = await context.newPage();
        await options.preparePage?.(page);
        return { context, page };
      } catch (error) {
        await context.close().catch(() => {});
        throw error;
      }
    })();
    lane.catch(() => {});
    return lane;
  }

  /*
   * A new context and page cost far more than a simple render on a small machine, so they are
   * prepared ahead, one at a time to leave the CPU to renders in flight. Each is still used once.
   */
  function refill(entry: BrowserEntry): void {
    if (entry.refilling || sparePages === 0) return;
    entry.refilling = true;
    void (async () => {
      try {
        while (entry.state === 'ready' && entry.spares.length < sparePages && !closed) {
          const lane = newLane(entry);
          entry.spares.push(lane);
          try {
            await lane;
          } catch (error) {
            entry.spares = entry.spares.filter((spare) => spare !== lane);
            if (entry.state === 'ready') logger.warn({ err: error, browser: entry.id }, 'could not prepare a spare page');
            return;
          }
        }
      } finally {
        entry.refilling = false;
      }
    })();
  }

  function takeLane(entry: BrowserEntry): Promise<Lane> {
    const spare = entry.spares.shift();
    refill(entry);
    return spare ?? newLane(entry);
  }

  function pick(): BrowserEntry | undefined {
    if (inFlight >= capacity) return undefined;
    let best: BrowserEntry | undefined;
    for (const entry of serving()) {
      if (entry.inFlight < pagesPerBrowser && (!best || entry.inFlight < best.inFlight)) best = entry;
    }
    return best;
  }

  function assign(entry: BrowserEntry): BrowserEntry {
    entry.inFlight++;
    inFlight++;
    entry.renders++;
    counters.rendersTotal++;
    if (entry.state === 'ready' && entry.renders >= restartAfterRenders) {
      entry.state = 'retiring';
      counters.restarts++;
      logger.info({ browser: entry.id, renders: entry.renders }, 'restarting Chromium after its render quota');
      ensureBrowsers();
    }
    return entry;
  }

  function dispatch(): void {
    while (queue.length > 0) {
      const entry = pick();
      if (!entry) return;
      const waiter = queue.shift() as Waiter;
      waiter.cleanup();
      waiter.resolve(assign(entry));
    }
  }

  function failWaiters(error: unknown): void {
    for (const waiter of queue.splice(0)) {
      waiter.cleanup();
      waiter.reject(error);
    }
  }

  function release(entry: BrowserEntry): void {
    entry.inFlight--;
    inFlight--;
    if (entry.state === 'draining' && entry.inFlight === 0) void closeEntry(entry);
    if (inFlight === 0) for (const resolve of idleWaiters.splice(0)) resolve();
    dispatch();
  }

  const whenIdle = () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve)));

  function acquire(withOptions: WithPageOptions): Promise<BrowserEntry> {
    if (closed) return Promise.reject(new PoolUnavailableError('the browser pool is closed', 5));
    withOptions.signal?.throwIfAborted();
    ensureBrowsers();
    const entry = queue.length === 0 ? pick() : undefined;
    if (entry) return Promise.resolve(assign(entry));
    if (queue.length >= maxQueue) {
      counters.rejected++;
      return Promise.reject(
        new PoolUnavailableError(`rendering is at capacity (${capacity} in flight, ${queue.length} queued)`, retryAfterSeconds()),
      );
    }
    return new Promise<BrowserEntry>((resolve, reject) => {
      const timeoutMs = withOptions.queueTimeoutMs ?? queueTimeoutMs;
      const leave = (error: unknown) => {
        const index = queue.indexOf(waiter);
        if (index < 0) return;
        queue.splice(index, 1);
        waiter.cleanup();
        reject(error);
      };
      const timer = setTimeout(() => {
        counters.rejected++;
        leave(new PoolUnavailableError(`no browser page became free within ${timeoutMs} ms`, retryAfterSeconds()));
      }, timeoutMs);
      const onAbort = () => leave(withOptions.signal?.reason);
      withOptions.signal?.addEventListener('abort', onAbort, { once: true });
      const waiter: Waiter = {
        resolve,
        reject,
        cleanup: () => {
          clearTimeout(timer);
          withOptions.signal?.removeEventListener('abort', onAbort);
        },
      };
      queue.push(waiter);
    });
  }

  /** Settles with the work, unless the browser dies first: then with the crash, at once. */
  function unlessCrashed<T>(entry: BrowserEntry, work: Promise<T>): Promise<T> {
    work.catch(() => {});
    return Promise.race([work, entry.crash]);
  }

  async function finish(entry: BrowserEntry, lane: Promise<Lane>): Promise<void> {
    try {
      if (entry.crashed) return;
      const outcome = await within(lane.then((ready) => ready.context.close()), CONTEXT_CLOSE_TIMEOUT_MS);
      if (outcome === TIMED_OUT && !entry.crashed) {
        // A browser that cannot close a context is wedged; killing it turns this into a crash,
        // which replaces it.
        logger.error({ browser: entry.id, pid: entry.pid }, 'Chromium did not close a context in time; killing it');
        entry.browser.process()?.kill('SIGKILL');
      }
    } catch (error) {
      if (!entry.crashed) logger.warn({ err: error, browser: entry.id }, 'could not close a browser context');
    } finally {
      release(entry);
    }
  }

  async function withPage<T>(fn: (page: Page) => Promise<T>, withOptions: WithPageOptions = {}): Promise<T> {
    const entry = await acquire(withOptions);
    const started = performance.now();
    const lane = takeLane(entry);
    try {
      const { page } = await unlessCrashed(entry, lane);
      const work = unlessCrashed(entry, fn(page));
      if (withOptions.timeoutMs === undefined) return await work;
      const outcome = await within(work, withOptions.timeoutMs);
      if (outcome === TIMED_OUT) {
        throw new PoolUnavailableError(`the render did not finish within ${withOptions.timeoutMs} ms`, retryAfterSeconds());
      }
      return outcome;
    } catch (error) {
      if (entry.crashed && !(error instanceof BrowserCrashedError)) {
        throw new BrowserCrashedError(`Chromium (pid ${entry.pid ?? 'unknown'}) crashed during the render; retry it`, { cause: error });
      }
      throw error;
    } finally {
      averageRenderMs = averageRenderMs * 0.9 + (performance.now() - started) * 0.1;
      // The caller has its result; closing the context is not its wait, but the slot stays taken
      // until it is done so the bound on open pages holds.
      void finish(entry, lane);
    }
  }

  async function warmUp(): Promise<void> {
    if (closed) throw new PoolUnavailableError('the browser pool is closed', 5);
    ensureBrowsers();
    await Promise.all([...launches]);
    if (serving().length === 0) {
      throw new PoolUnavailableError(`could not start Chromium: ${(lastLaunchError as Error | undefined)?.message ?? 'unknown error'}`, 5, {
        cause: lastLaunchError,
      });
    }
    await Promise.allSettled(serving().map((entry) => entry.spares[0]));
  }

  function stats(): BrowserPoolStats {
    return {
      browsers: serving().length,
      launching: launches.size,
      inFlight,
      queued: queue.length,
      capacity,
      maxQueue,
      sparePages: entries.reduce((sum, entry) => sum + entry.spares.length, 0),
      ...counters,
    };
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    failWaiters(new PoolUnavailableError('the browser pool is closed', 5));
    await within(Promise.allSettled([...launches, whenIdle()]), closeTimeoutMs);
    await Promise.allSettled([...entries].map(closeEntry));
    await Promise.allSettled([...closings]);
  }

  return { warmUp, withPage, stats, close };
}

const TIMED_OUT = Symbol('timed out');

/** Settles like work, or with TIMED_OUT after ms; the timer never outlives the work. */
async function within<T>(work: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(resolve, ms, TIMED_OUT);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function positive(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${value}`);
  return value;
}
