import { DEFAULT_RETRY_AFTER_SECONDS } from '../../domain/shared/errors.js';
import { PoolUnavailableError } from './pool-errors.js';

export interface AdmissionQueueOptions {
  /** Renders running at once. */
  readonly capacity: number;
  /** Renders waiting at once, all organizations together; one more is refused at once. */
  readonly maxQueued: number;
  /** Renders one organization may have waiting; its next one is refused, the others' are not. */
  readonly maxQueuedPerTenant: number;
  /**
   * Renders one organization may run at once. Below capacity, some room always stays for the
   * others, so a flood of slow (or hostile) renders of one organization cannot take every slot.
   */
  readonly maxRunningPerTenant: number;
  /** How long a render waits for a slot before it is refused. */
  readonly queueTimeoutMs: number;
  /**
   * Background renders (nobody waits for them on an open connection: batch rows, renders told by
   * webhook) running at once, at most, while no client has asked for a render lately; the other
   * slots stay for renders a client waits for.
   */
  readonly maxRunningBackground: number;
  /**
   * Background renders running at once, at most, within `busyWindowMs` of a render a client waits
   * for: the cores go to that client's render rather than to renders nobody is waiting on.
   */
  readonly maxRunningBackgroundWhileBusy?: number;
  readonly busyWindowMs?: number;
  /**
   * Background renders run apart, in a browser of their own: they take none of the `capacity` of
   * renders clients wait for, and `maxRunningBackground` alone bounds them.
   */
  readonly backgroundApart?: boolean;
  /** Seeds the Retry-After estimate until renders have been timed. */
  readonly initialRenderMs?: number;
}

export interface AdmitOptions {
  readonly signal?: AbortSignal;
  /** Overrides queueTimeoutMs for this render; 0 refuses at once when no slot is free. */
  readonly queueTimeoutMs?: number;
  /** A background render: served after every render a client waits for, and in fewer slots. */
  readonly background?: boolean;
}

/** A slot held by one render; releasing it twice is harmless. */
export interface Admission {
  release(): void;
}

export interface AdmissionStats {
  readonly running: number;
  readonly queued: number;
  readonly capacity: number;
  readonly maxQueued: number;
  readonly rejected: number;
  readonly tenantsWaiting: number;
}

export interface AdmissionQueue {
  /** Resolves with a slot, in turn across organizations; rejects with PoolUnavailableError when refused. */
  admit(tenant: string, options?: AdmitOptions): Promise<Admission>;
  /** Seconds after which asking again is worth it, from the work ahead and the observed render time. */
  retryAfterSeconds(): number;
  /** Feeds the Retry-After estimate. */
  recordRenderTime(ms: number): void;
  stats(): AdmissionStats;
  /** Refuses everything waiting and everything asked from now on. */
  close(reason: Error): void;
}

interface Waiter {
  readonly tenant: string;
  readonly background: boolean;
  readonly grant: (admission: Admission) => void;
  readonly refuse: (error: unknown) => void;
  readonly cleanup: () => void;
}

/**
 * Fair, bounded admission to the browser pool: each organization has its own line, and a freed
 * slot goes to the next organization in turn (round robin), not to whoever queued first. Background
 * renders have lines of their own, served only when no render a client waits for can take the slot,
 * and never in more than their share of the slots. Pure bookkeeping with timers, so it is tested
 * without Chromium.
 */
export const createAdmissionQueue = (options: AdmissionQueueOptions): AdmissionQueue => {
  const { capacity, maxQueued, maxQueuedPerTenant, maxRunningPerTenant, queueTimeoutMs, maxRunningBackground } = options;
  const whileBusy = Math.min(maxRunningBackground, options.maxRunningBackgroundWhileBusy ?? maxRunningBackground);
  const busyWindowMs = options.busyWindowMs ?? 0;
  /** When a render a client waits for last asked for a slot. */
  let lastInteractiveAt = Number.NEGATIVE_INFINITY;
  const backgroundRoom = () => (Date.now() - lastInteractiveAt < busyWindowMs ? whileBusy : maxRunningBackground);
  /** Insertion order is the round-robin order: a served tenant goes to the back. */
  const lines = new Map<string, Waiter[]>();
  const backgroundLines = new Map<string, Waiter[]>();
  const linesOf = (background: boolean) => (background ? backgroundLines : lines);
  const runningBy = new Map<string, number>();
  let running = 0;
  let runningBackground = 0;
  let queued = 0;
  let rejected = 0;
  let closedWith: Error | undefined;
  let averageRenderMs = options.initialRenderMs ?? 1_000;

  const apart = options.backgroundApart === true;
  /** Whose renders a tenant's share counts: apart, its background renders have a share of their own. */
  const shareOf = (tenant: string, background: boolean) => (apart && background ? `background\u0000${tenant}` : tenant);
  const runningOf = (share: string) => runningBy.get(share) ?? 0;
  const mayRun = (tenant: string, background: boolean) => {
    if (apart && background) return runningBackground < backgroundRoom() && runningOf(shareOf(tenant, true)) < maxRunningPerTenant;
    const occupied = apart ? running - runningBackground : running;
    return occupied < capacity && runningOf(tenant) < maxRunningPerTenant && (!background || runningBackground < backgroundRoom());
  };

  const retryAfterSeconds = () => Math.max(1, Math.ceil((((queued + running) / capacity) * averageRenderMs) / 1_000));

  const refusal = (message: string) => {
    rejected++;
    return new PoolUnavailableError(message, retryAfterSeconds());
  };

  const grantTo = (tenant: string, background: boolean): Admission => {
    running++;
    if (background) runningBackground++;
    const share = shareOf(tenant, background);
    runningBy.set(share, runningOf(share) + 1);
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        running--;
        if (background) runningBackground--;
        const left = runningOf(share) - 1;
        if (left === 0) runningBy.delete(share);
        else runningBy.set(share, left);
        dispatch();
      },
    };
  };

  const removeWaiter = (waiter: Waiter): boolean => {
    const ofKind = linesOf(waiter.background);
    const line = ofKind.get(waiter.tenant);
    const index = line?.indexOf(waiter) ?? -1;
    if (!line || index < 0) return false;
    line.splice(index, 1);
    if (line.length === 0) ofKind.delete(waiter.tenant);
    queued--;
    waiter.cleanup();
    return true;
  };

  /** Grants the next slot of one kind of line, in turn across organizations; whether it granted one. */
  const dispatchFrom = (background: boolean): boolean => {
    const ofKind = linesOf(background);
    for (const [tenant, line] of ofKind) {
      if (!mayRun(tenant, background)) continue;
      const waiter = line[0];
      if (!waiter) continue;
      removeWaiter(waiter);
      // To the back of the round: the next free slot goes to another organization first.
      const rest = ofKind.get(tenant);
      if (rest) {
        ofKind.delete(tenant);
        ofKind.set(tenant, rest);
      }
      waiter.grant(grantTo(tenant, background));
      return true;
    }
    return false;
  };

  function dispatch(): void {
    while (dispatchFrom(false) || dispatchFrom(true));
  }

  const admit = (tenant: string, admitOptions: AdmitOptions = {}): Promise<Admission> => {
    if (closedWith) return Promise.reject(new PoolUnavailableError(closedWith.message, DEFAULT_RETRY_AFTER_SECONDS));
    admitOptions.signal?.throwIfAborted();
    const waitMs = admitOptions.queueTimeoutMs ?? queueTimeoutMs;
    const background = admitOptions.background === true;
    if (!background) lastInteractiveAt = Date.now();
    const ownLine = linesOf(background).get(tenant);
    // A background render goes ahead at once only when no render a client waits for is waiting.
    if (!ownLine && mayRun(tenant, background) && (!background || lines.size === 0)) return Promise.resolve(grantTo(tenant, background));
    if (waitMs <= 0) return Promise.reject(refusal(`rendering is at capacity (${running} of ${capacity} running)`));
    if (queued >= maxQueued) return Promise.reject(refusal(`rendering is at capacity (${running} running, ${queued} queued)`));
    if ((ownLine?.length ?? 0) >= maxQueuedPerTenant) {
      return Promise.reject(refusal(`this organization already has ${maxQueuedPerTenant} renders waiting; retry shortly`));
    }
    return new Promise<Admission>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (removeWaiter(waiter)) reject(refusal(`no render slot became free within ${waitMs} ms`));
      }, waitMs);
      const onAbort = () => {
        if (removeWaiter(waiter)) reject(admitOptions.signal?.reason);
      };
      admitOptions.signal?.addEventListener('abort', onAbort, { once: true });
      const waiter: Waiter = {
        tenant,
        background,
        grant: resolve,
        refuse: reject,
        cleanup: () => {
          clearTimeout(timer);
          admitOptions.signal?.removeEventListener('abort', onAbort);
        },
      };
      const ofKind = linesOf(background);
      const line = ofKind.get(tenant) ?? [];
      line.push(waiter);
      ofKind.set(tenant, line);
      queued++;
    });
  };

  return {
    admit,
    retryAfterSeconds,
    recordRenderTime(ms: number) {
      averageRenderMs = averageRenderMs * 0.9 + ms * 0.1;
    },
    stats: () => ({ running, queued, capacity, maxQueued, rejected, tenantsWaiting: new Set([...lines.keys(), ...backgroundLines.keys()]).size }),
    close(reason: Error) {
      closedWith = reason;
      for (const line of [...lines.values(), ...backgroundLines.values()]) {
        for (const waiter of [...line]) {
          removeWaiter(waiter);
          waiter.refuse(new PoolUnavailableError(reason.message, DEFAULT_RETRY_AFTER_SECONDS));
        }
      }
    },
  };
};
