import type { CDPSession, Page } from 'puppeteer-core';
import type { Logger } from 'pino';
import { createAdmissionQueue, type Admission } from './admission-queue.js';
import { launchBrowserSlot, type BrowserSlot } from './browser-slot.js';
import { DEFAULT_CHROMIUM_PATH } from './chromium-path.js';
import { DEFAULT_RETRY_AFTER_SECONDS } from '../../domain/shared/errors.js';
import { PoolUnavailableError } from './pool-errors.js';
import { moveTreeToIdleClass } from './process-priority.js';
import { within } from './within.js';

export interface BrowserPoolOptions {
  executablePath?: string;
  /** Chromium processes kept running. */
  browsers?: number;
  /** Renders at once per browser; browsers * pagesPerBrowser is the pool's capacity. */
  pagesPerBrowser?: number;
  /** Renders allowed to wait for a slot, all organizations together; one more is refused at once. */
  maxQueue?: number;
  /** Renders one organization may have waiting. */
  maxQueuedPerTenant?: number;
  /** Share of the capacity one organization may use at once (at least one render). */
  tenantShare?: number;
  /** How long a queued render waits for a slot before it is refused. */
  renderQueueTimeoutMs?: number;
  /** A browser is replaced after this many renders, which bounds what leaks in Chromium can grow to. */
  restartAfterRenders?: number;
  /** A warm page is replaced after this many renders. */
  maxUsesPerPage?: number;
  /** Graceful close waits this long for renders in flight before killing the browsers. */
  closeTimeoutMs?: number;
  extraArgs?: readonly string[];
  /** Pages that draw only when a video frame asks (chrome-headless-shell); see BEGIN_FRAME_ARGS. */
  framesOnDemand?: boolean;
  /**
   * Browsers are closed once the pool has had nothing to do for this long, and started again by the
   * next render: a pool used now and then (videos) holds no memory in between. Unset: kept running.
   */
  idleCloseMs?: number;
  /**
   * Background renders (a batch's rows) run in a browser of their own in the idle scheduling class,
   * started by the first of them and closed once none has come for a while: the kernel gives it only
   * the CPU time renders clients wait for leave over. Unset: background renders share the browsers.
   */
  idleBackground?: boolean;
  /** Runs once on every new page, for the organization it belongs to, before a render gets it: per-page setup every render needs. */
  preparePage?: (page: Page, tenant: string) => Promise<void>;
  /** Readies a used page for the next render (about:blank when not given). */
  resetPage?: (page: Page, cdp: CDPSession) => Promise<unknown>;
  logger: Logger;
}

/** How long after a render a client waits for that background renders keep to one slot. */
const BACKGROUND_YIELDS_FOR_MS = 3_000;
/** The background browser is closed once no background render has come for this long. */
const BACKGROUND_BROWSER_IDLE_MS = 60_000;
/** How often the background browser's processes are put back in the idle class while it runs (see moveTreeToIdleClass). */
const BACKGROUND_CLASS_CHECK_MS = 2_000;

export interface WithPageOptions {
  /** The organization the render is for; pages are never shared between organizations. */
  tenant: string;
  /** Hard bound on fn once it has its page, enforced even when Chromium stops answering. */
  deadlineMs: number;
  /** Aborts the wait for a slot; a render already running is bounded by its deadline. */
  signal?: AbortSignal;
  /** Overrides renderQueueTimeoutMs for this call; 0 refuses at once when no slot is free. */
  queueTimeoutMs?: number;
  /** Nobody waits for this render on an open connection: it is admitted after those a client waits for. */
  background?: boolean;
  /** Prefer a page the tenant last used for the same (see RunOptions.affinity). */
  affinity?: string;
  /** Readies the page for the next render instead of resetPage. */
  reset?: (page: Page, cdp: CDPSession) => Promise<unknown>;
  /** Undoes what reset left before the page's next render (see RunOptions.wake). */
  wake?: (page: Page, cdp: CDPSession) => Promise<unknown>;
}

export interface BrowserPoolStats {
  browsers: number;
  launching: number;
  inFlight: number;
  queued: number;
  capacity: number;
  maxQueue: number;
  rendersTotal: number;
  restarts: number;
  crashes: number;
  rejected: number;
}

export interface BrowserPool {
  /** Its pages draw only when asked: see BEGIN_FRAME_ARGS. */
  readonly framesOnDemand: boolean;
  /** Starts the browsers, so the first renders do not pay for it. */
  warmUp(): Promise<void>;
  /**
   * Runs fn on a warm page of the tenant's own. Rejects with PoolUnavailableError when no slot is
   * free in time, BrowserCrashedError when Chromium dies during the render, RenderDeadlineError when
   * fn outlives its deadline, and a validation error when the page crashes.
   */
  withPage<T>(fn: (page: Page, cdp: CDPSession) => Promise<T>, options: WithPageOptions): Promise<T>;
  /** Seconds after which a refused render is worth asking again. */
  retryAfterSeconds(): number;
  stats(): BrowserPoolStats;
  close(): Promise<void>;
}

/*
 * Full Chromium calls Google on its own whatever --disable-background-networking and
 * --disable-component-update say: the component updater (update.googleapis.com), account sign-in
 * (accounts.google.com ListAccounts) and the network time service (clients2.google.com, off by
 * its feature above). Their addresses are pointed at port 9 of loopback, which Chromium refuses to
 * connect to at all (a restricted port): nothing leaves, not even a refused attempt through the
 * egress proxy. A self-hosted renderer contacts no host a template or request did not name
 * (test/int/no-calls-home.int.test.ts).
 */
const NOWHERE = 'http://127.0.0.1:9';
const NO_GOOGLE_SERVICES: readonly string[] = [
  `--component-updater=url-source=${NOWHERE}/`,
  `--gaia-url=${NOWHERE}`,
  `--lso-url=${NOWHERE}`,
  `--google-apis-url=${NOWHERE}`,
];

/*
 * Background throttling would stretch timers and animation frames of pages Chromium considers
 * hidden, which every headless page is: renders would wait for nothing and video frames would
 * drift. The network flags keep Chromium from calling home. QUIC is off and WebRTC may not send
 * UDP outside a proxy, because UDP bypasses the egress proxy that checks every address. Chromium's
 * own private-network checks are off because that proxy is the one policy (with its allow list):
 * Chromium would refuse a host the operator allowed, since template documents are not served from
 * a private address. A V8 heap bound makes a memory-hungry page crash its own renderer early
 * instead of starving the machine. No spare renderer: Chromium would start one after nearly every
 * frame navigation and throw it away unused, since every page here keeps its own renderer.
 */
export const CHROMIUM_ARGS: readonly string[] = [
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
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--js-flags=--max-old-space-size=512',
  '--disable-features=BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,LocalNetworkAccessChecks,SpareRendererForSitePerProcess,NetworkTimeServiceQuerying',
  ...NO_GOOGLE_SERVICES,
];

/*
 * Frames on demand, for video: the compositor draws a page only when HeadlessExperimental.beginFrame
 * asks, and that call returns the frame's screenshot. A screenshot otherwise waits for the next
 * 60 Hz tick whatever the frame's size (and two pages capture no faster than one) and draws frames
 * nobody captures; on demand a frame takes less time and less Chromium CPU (docs/benchmarks.md,
 * "Video"). Only chrome-headless-shell has it.
 * Every stage runs before the draw and images decode before raster, so the frame is complete.
 * Frames of two pages of one browser must not be in flight at once (its GPU process dies of
 * "overlapping IssueExternalBeginFrame"), so such a pool runs one page per browser.
 */
export const BEGIN_FRAME_ARGS: readonly string[] = [
  '--enable-begin-frame-control',
  '--run-all-compositor-stages-before-draw',
  '--disable-new-content-rendering-timeout',
  '--disable-threaded-animation',
  '--disable-threaded-scrolling',
  '--disable-checker-imaging',
];

export function createBrowserPool(options: BrowserPoolOptions): BrowserPool {
  const { logger } = options;
  const executablePath = options.executablePath ?? DEFAULT_CHROMIUM_PATH;
  const browsers = positive(options.browsers ?? 1, 'browsers');
  const pagesPerBrowser = positive(options.pagesPerBrowser ?? 4, 'pagesPerBrowser');
  if (options.framesOnDemand && pagesPerBrowser !== 1) throw new Error('a pool of pages that draw frames on demand runs one page per browser');
  const restartAfterRenders = positive(options.restartAfterRenders ?? 1_000, 'restartAfterRenders');
  const closeTimeoutMs = options.closeTimeoutMs ?? 10_000;
  const capacity = browsers * pagesPerBrowser;
  const idleBackground = options.idleBackground === true;
  const maxQueue = Math.max(0, options.maxQueue ?? 32);
  const admission = createAdmissionQueue({
    capacity,
    maxQueued: maxQueue,
    maxQueuedPerTenant: Math.max(1, options.maxQueuedPerTenant ?? Math.ceil(maxQueue / 2)),
    maxRunningPerTenant: Math.max(1, Math.floor(capacity * (options.tenantShare ?? 0.75))),
    queueTimeoutMs: options.renderQueueTimeoutMs ?? 30_000,
    // A render a client waits for always finds a free slot beside a batch: apart, the batch has a
    // browser of its own as large as the clients' one; sharing, it leaves one slot free. While
    // clients are asking, a batch keeps one render going so that theirs have the cores.
    maxRunningBackground: idleBackground ? capacity : Math.max(1, capacity - 1),
    maxRunningBackgroundWhileBusy: 1,
    busyWindowMs: BACKGROUND_YIELDS_FOR_MS,
    backgroundApart: idleBackground,
  });
  const args = [
    ...CHROMIUM_ARGS,
    ...(options.framesOnDemand ? BEGIN_FRAME_ARGS : []),
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
    ...(options.extraArgs ?? []),
  ];

  let slots: BrowserSlot[] = [];
  /** Slots past their render quota: no new work, closed once idle. */
  const draining = new Set<BrowserSlot>();
  const launches = new Set<Promise<BrowserSlot | undefined>>();
  let nextId = 1;
  let closed = false;
  let lastLaunchError: unknown;
  const counters = { rendersTotal: 0, restarts: 0, crashes: 0 };

  const retire = (slot: BrowserSlot) => {
    slots = slots.filter((candidate) => candidate !== slot);
    draining.add(slot);
    void slot
      .idle()
      .then(() => slot.close())
      .finally(() => draining.delete(slot));
  };

  /** The browser of background renders, when they have one (idleBackground), while they come. */
  let backgroundSlot: Promise<BrowserSlot | undefined> | undefined;
  let lastBackgroundAt = 0;

  function launch(lane: 'clients' | 'background' = 'clients'): Promise<BrowserSlot | undefined> {
    const launching = launchBrowserSlot({
      id: nextId++,
      executablePath,
      args,
      framesOnDemand: options.framesOnDemand ?? false,
      maxPages: pagesPerBrowser * 2,
      maxUsesPerPage: options.maxUsesPerPage ?? 100,
      preparePage: options.preparePage,
      resetPage: options.resetPage,
      onCrash: (slot) => {
        counters.crashes++;
        slots = slots.filter((candidate) => candidate !== slot);
        draining.delete(slot);
        if (lane === 'background') backgroundSlot = undefined;
        ensureBrowsers();
      },
      logger,
    }).then(
      async (slot) => {
        if (closed) {
          void slot.close();
          return undefined;
        }
        if (lane === 'background') {
          if (slot.pid !== undefined) await moveTreeToIdleClass(slot.pid);
          return slot;
        }
        slots.push(slot);
        return slot;
      },
      (error: unknown) => {
        lastLaunchError = error;
        logger.error({ err: error, executablePath }, 'could not start Chromium');
        return undefined;
      },
    );
    launches.add(launching);
    void launching.finally(() => launches.delete(launching));
    return launching;
  }

  function ensureBrowsers(): void {
    if (closed) return;
    for (let wanted = browsers - slots.length - launches.size; wanted > 0; wanted--) void launch();
  }

  /** Starts browsers that are missing, and waits for one when none runs yet. */
  async function browsersReady(): Promise<void> {
    ensureBrowsers();
    if (slots.length === 0) await Promise.all([...launches]);
  }

  /** The background browser, started if it is not running (a failed start is retried by the next background render). */
  async function backgroundBrowser(): Promise<BrowserSlot> {
    lastBackgroundAt = performance.now();
    backgroundSlot ??= launch('background');
    const slot = await backgroundSlot;
    if (slot && !slot.crashed) return slot;
    backgroundSlot = undefined;
    const reason = (lastLaunchError as Error | undefined)?.message ?? 'it stopped';
    throw new PoolUnavailableError(`could not start the background Chromium: ${reason}`, DEFAULT_RETRY_AFTER_SECONDS, { cause: lastLaunchError });
  }

  /** Past its quota or idle, the background browser finishes what it runs and closes; the next background render starts another. */
  function retireBackground(slot: BrowserSlot): void {
    backgroundSlot = undefined;
    draining.add(slot);
    void slot
      .idle()
      .then(() => slot.close())
      .finally(() => draining.delete(slot));
  }

  /**
   * A browser with a warm page of the tenant's if one has room, else the least busy one. Chosen
   * and handed its render in one synchronous step (see withPage), so two renders admitted together
   * both see the other's page as busy.
   */
  function slotFor(tenant: string): BrowserSlot {
    const candidates = slots.filter((slot) => !slot.crashed);
    const warm = candidates.find((slot) => slot.busy < pagesPerBrowser && slot.hasIdlePageFor(tenant));
    const chosen = warm ?? candidates.sort((a, b) => a.busy - b.busy)[0];
    if (!chosen) {
      const reason = (lastLaunchError as Error | undefined)?.message ?? 'no browser is running';
      throw new PoolUnavailableError(`could not start Chromium: ${reason}`, DEFAULT_RETRY_AFTER_SECONDS, { cause: lastLaunchError });
    }
    return chosen;
  }

  /** Past its quota, a browser serves the render it has just started and closes once idle; a replacement starts now. */
  function retireIfSpent(slot: BrowserSlot): void {
    if (slot.renders < restartAfterRenders || !slots.includes(slot)) return;
    counters.restarts++;
    logger.info({ browser: slot.id, renders: slot.renders }, 'restarting Chromium after its render quota');
    retire(slot);
    ensureBrowsers();
  }

  /** When the pool last started or finished a render. */
  let lastActive = performance.now();
  const idleCheck =
    options.idleCloseMs === undefined
      ? undefined
      : setInterval(() => {
          const { running, queued } = admission.stats();
          if (running > 0 || queued > 0 || slots.length === 0 || performance.now() - lastActive < (options.idleCloseMs ?? 0)) return;
          logger.info({ browsers: slots.length, idleMs: Math.round(performance.now() - lastActive) }, 'closing idle browsers; the next render starts them again');
          for (const slot of [...slots]) retire(slot);
        }, Math.max(50, Math.min(options.idleCloseMs, 30_000)));
  idleCheck?.unref();
  let classCheck: Promise<void> | undefined;
  const backgroundCheck = !idleBackground
    ? undefined
    : setInterval(() => {
        const running = backgroundSlot;
        if (!running || classCheck) return;
        classCheck = running
          .then(async (slot) => {
            if (!slot) return;
            if (performance.now() - lastBackgroundAt >= BACKGROUND_BROWSER_IDLE_MS) retireBackground(slot);
            else if (slot.pid !== undefined) await moveTreeToIdleClass(slot.pid);
          })
          .finally(() => (classCheck = undefined));
      }, BACKGROUND_CLASS_CHECK_MS);
  backgroundCheck?.unref();

  async function withPage<T>(fn: (page: Page, cdp: CDPSession) => Promise<T>, withOptions: WithPageOptions): Promise<T> {
    lastActive = performance.now();
    // Once closed, the admission queue refuses every render itself.
    const ticket: Admission = await admission.admit(withOptions.tenant, { signal: withOptions.signal, queueTimeoutMs: withOptions.queueTimeoutMs, background: withOptions.background });
    const started = performance.now();
    let handedOver = false;
    try {
      const inBackground = withOptions.background === true && idleBackground;
      if (!inBackground) await browsersReady();
      const slot = inBackground ? await backgroundBrowser() : slotFor(withOptions.tenant);
      counters.rendersTotal++;
      handedOver = true;
      const running = slot.run(({ page, cdp }) => fn(page, cdp), {
        tenant: withOptions.tenant,
        deadlineMs: withOptions.deadlineMs,
        onSettled: () => ticket.release(),
        affinity: withOptions.affinity,
        reset: withOptions.reset,
        wake: withOptions.wake,
      });
      if (inBackground) {
        if (slot.renders >= restartAfterRenders && backgroundSlot) retireBackground(slot);
      } else retireIfSpent(slot);
      return await running;
    } finally {
      lastActive = performance.now();
      admission.recordRenderTime(performance.now() - started);
      if (!handedOver) ticket.release();
    }
  }

  async function warmUp(): Promise<void> {
    if (closed) throw new PoolUnavailableError('the browser pool is closed', DEFAULT_RETRY_AFTER_SECONDS);
    ensureBrowsers();
    await Promise.all([...launches]);
    if (slots.length === 0) {
      throw new PoolUnavailableError(`could not start Chromium: ${(lastLaunchError as Error | undefined)?.message ?? 'unknown error'}`, DEFAULT_RETRY_AFTER_SECONDS, {
        cause: lastLaunchError,
      });
    }
  }

  function stats(): BrowserPoolStats {
    const { running, queued, rejected } = admission.stats();
    return { browsers: slots.length, launching: launches.size, inFlight: running, queued, capacity, maxQueue, rejected, ...counters };
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    clearInterval(idleCheck);
    clearInterval(backgroundCheck);
    const background = await backgroundSlot;
    if (background) draining.add(background);
    admission.close(new Error('the browser pool is closed'));
    const all = [...slots, ...draining];
    await within(Promise.allSettled([...launches, ...all.map((slot) => slot.idle())]), closeTimeoutMs);
    await Promise.allSettled([...slots, ...draining].map((slot) => slot.close()));
  }

  return { framesOnDemand: options.framesOnDemand ?? false, warmUp, withPage, retryAfterSeconds: () => admission.retryAfterSeconds(), stats, close };
}

function positive(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${value}`);
  return value;
}
